import type { Request, Router } from 'express';
import { createRouter } from '../../infrastructure/http/router.ts';
import { z } from 'zod';
import { ApiError, notFound, validationFailed } from '../../infrastructure/http/api-error.ts';
import {
  sendJson,
  sendRepresentation,
  type Representation,
} from '../../infrastructure/http/representation.ts';
import { parseInput, refuseQueryParameters } from '../../infrastructure/http/validation.ts';
import type { CatalogStore } from '../../catalog/catalog.ts';
import type { CatalogRepresentations } from './catalog-representations.ts';
import { surrogateKeys } from '../../catalog/surrogate-keys.ts';

/** Canonical positive integers only, so one product has one URL (and one entry in every cache). */
const productIdPattern = /^[1-9]\d{0,15}$/;
const categoryIdPattern = /^[a-z0-9-]{1,100}$/;

/** The id of /products/{id}..., or a 400. */
const productIdOf = (request: Request): number => {
  const id = request.params['id'] as string;
  if (!productIdPattern.test(id) || !Number.isSafeInteger(Number(id))) {
    throw validationFailed([{ field: 'id', message: 'must be a positive integer' }]);
  }
  return Number(id);
};

const productNotFound = (id: number) =>
  new ApiError('not-found', `There is no product ${id}.`, { extensions: { code: 'PRODUCT_NOT_FOUND' } });

const pageNumber = z.coerce.number({ error: 'must be an integer' }).int('must be an integer');

export const searchQuery = z.object({
  q: z
    .string({ error: 'is required' })
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters'),
  page: pageNumber.min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000').default(1),
  perPage: pageNumber.min(1, 'must be at least 1').max(100, 'must be at most 100').default(20),
});

/** GET /products, /products/{id}, /products/{id}/stock, /categories, /categories/{id}, /search: read-only, cacheable. */
export const catalogRoutes = ({
  store,
  representations,
}: {
  store: CatalogStore;
  representations: CatalogRepresentations;
}): Router => {
  const router = createRouter();

  router.get('/products', async (request, response) => {
    refuseQueryParameters(request);
    response.setHeader('Surrogate-Key', surrogateKeys.productList);
    sendRepresentation(request, response, await representations.productList());
  });

  router.get('/products/:id', (request, response) => {
    const id = productIdOf(request);
    refuseQueryParameters(request);
    // Also on the 404: a cached "no such product" goes when the product is added.
    response.setHeader('Surrogate-Key', surrogateKeys.product(id));
    const send = (representation: Representation | null) => {
      if (!representation) throw productNotFound(id);
      sendRepresentation(request, response, representation);
    };
    // The hottest route answers kept representations synchronously; only a miss or a check awaits.
    const representation = representations.product(id);
    return representation instanceof Promise ? representation.then(send) : send(representation);
  });

  router.get('/products/:id/stock', async (request, response) => {
    const id = productIdOf(request);
    refuseQueryParameters(request);
    response.setHeader('Surrogate-Key', surrogateKeys.product(id));
    const representation = await representations.stock(id);
    if (!representation) throw productNotFound(id);
    sendRepresentation(request, response, representation);
  });

  router.get('/categories', async (request, response) => {
    refuseQueryParameters(request);
    response.setHeader('Surrogate-Key', surrogateKeys.categoryList);
    sendRepresentation(request, response, await representations.categoryList());
  });

  router.get('/categories/:id', async (request, response) => {
    const id = request.params['id'] as string;
    if (!categoryIdPattern.test(id)) {
      throw validationFailed([{ field: 'id', message: 'must be a category id such as kitchen' }]);
    }
    refuseQueryParameters(request);
    response.setHeader('Surrogate-Key', surrogateKeys.category(id));
    const representation = await representations.category(id);
    if (!representation) throw notFound(`There is no category ${id}.`);
    sendRepresentation(request, response, representation);
  });

  router.get('/search', async (request, response) => {
    const { q, page, perPage } = parseInput(searchQuery, request.query, 'query');
    response.setHeader('Surrogate-Key', surrogateKeys.search);
    const { total, items } = await store.searchProducts(q, { offset: (page - 1) * perPage, limit: perPage });
    // Spec 4.7's table: search results are private, no-cache, with an ETag.
    sendJson(
      request,
      response,
      { meta: { total, page, perPage }, data: items },
      { cacheControl: 'private, no-cache' },
    );
  });

  return router;
};
