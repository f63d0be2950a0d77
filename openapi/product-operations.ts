import { z } from 'zod';
import {
  categoryListCacheControl,
  productDetailCacheControl,
  productListCacheControl,
  stockCacheControl,
} from '../query-api/catalog/catalog-representations.ts';
import { searchQuery } from '../query-api/catalog/catalog-routes.ts';
import type { ApiOperation, ApiResponse } from '../infrastructure/http/openapi/api-operation.ts';
import { pageOf, problemSchema, timestamp } from './common-schemas.ts';

const productSummary = z
  .strictObject({ id: z.int().min(1), name: z.string() })
  .meta({ id: 'ProductSummary', description: 'A product in a list: its id and name only.' });

const product = z
  .strictObject({
    id: z.int().min(1),
    name: z.string(),
    price: z
      .number()
      .meta({ description: 'Decimal, in the catalogue currency (configuration; default EUR).' }),
    updatedAt: timestamp.meta({ description: 'RFC 3339 timestamp of the last change.' }),
  })
  .meta({ id: 'Product', description: 'A product: its price is a decimal in the catalogue currency.' });

const category = z.strictObject({ id: z.string(), name: z.string() }).meta({ id: 'Category' });

const stockUpdatedAt = timestamp.meta({
  description:
    'The product’s updatedAt: when the catalogue last changed the product, its stock included. Last-Modified is this date, or the time of the import that recorded the product where this date is ahead of the importing clock or did not move forward with a change.',
});
const stockLevel = z
  .discriminatedUnion('tracked', [
    z.strictObject({
      productId: z.int().min(1),
      available: z.int().min(0).meta({
        description: 'Units that may be ordered now (0: sold out). Orders do not reserve stock.',
      }),
      tracked: z.literal(true),
      updatedAt: stockUpdatedAt,
    }),
    z.strictObject({
      productId: z.int().min(1),
      available: z.null().meta({ description: 'Not tracked: any quantity may be ordered.' }),
      tracked: z.literal(false),
      updatedAt: stockUpdatedAt,
    }),
  ])
  .meta({
    id: 'StockLevel',
    description:
      'A product’s stock as the catalogue import last set it. `tracked: false` (with `available: null`) when the catalogue does not track the product’s stock.',
  });

const productNotFound = problemSchema.and(z.object({ code: z.literal('PRODUCT_NOT_FOUND') })).meta({
  id: 'ProductNotFoundProblem',
  description:
    'A not-found problem that also carries `code: PRODUCT_NOT_FOUND`, for clients that look for that code.',
});

/** Surrogate-Key `product-<id>` on the 404 too: adding the product purges a cached "no such product". */
const productNotFoundCase = {
  when: 'There is no product with this id. The answer carries `Surrogate-Key: product-<id>`, so that adding the product purges it from caches.',
  body: productNotFound,
};

const productDetailHeaders = {
  ETag: true,
  'Last-Modified': true,
  'Cache-Control': productDetailCacheControl,
  'Surrogate-Key': true,
} as const;
const stockHeaders = { ...productDetailHeaders, 'Cache-Control': stockCacheControl } as const;
const categoryListHeaders = {
  ETag: true,
  'Cache-Control': categoryListCacheControl,
  'Surrogate-Key': 'categories',
} as const;
const searchHeaders = {
  ETag: true,
  'Cache-Control': 'private, no-cache',
  'Surrogate-Key': 'search',
} as const;

/**
 * The product id of /products/{id}...: an integer, as a product's `id` is, so that a generated client takes
 * one as it is. The service reads it in its canonical form only (no sign, no leading zero: one product,
 * one URL), as every client writes an integer.
 */
const productIdParams = z.object({
  id: z
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .meta({ description: 'A product id: a positive integer, written without sign or leading zeros.' }),
});

const notModified = (headers: ApiResponse['headers']): ApiResponse => ({
  description: 'Not modified: the client’s copy is current. No body; the caching headers are repeated.',
  ...(headers ? { headers } : {}),
});

const noQueryParameters =
  'A query parameter is given: this resource takes none (one URL per resource, one copy in a shared cache).';

export const productOperations: ApiOperation[] = [
  {
    method: 'get',
    path: '/products',
    operationId: 'listProducts',
    tag: 'products',
    summary: 'List the products',
    description:
      'Every product, by id. The ETag covers every product’s id and update time, so it changes when any product does.',
    responses: {
      200: {
        description: 'The products.',
        body: z.array(productSummary),
        headers: { ETag: true, 'Cache-Control': productListCacheControl, 'Surrogate-Key': 'products' },
      },
      304: notModified({ ETag: true, 'Cache-Control': productListCacheControl, 'Surrogate-Key': 'products' }),
    },
    problems: { 'validation-failed': noQueryParameters },
  },
  {
    method: 'get',
    path: '/products/{id}',
    operationId: 'getProduct',
    tag: 'products',
    summary: 'Read a product',
    description:
      'Its name, price and update time. Cached 300 s by browsers and shared caches alike (`Surrogate-Key: product-<id>`, purged when an import changes it); `Last-Modified` and the ETag answer conditional requests.',
    params: productIdParams,
    responses: {
      200: {
        description: 'The product.',
        body: product,
        headers: productDetailHeaders,
      },
      304: notModified(productDetailHeaders),
    },
    problems: {
      'validation-failed': `The id is not a positive integer. ${noQueryParameters}`,
      'not-found': productNotFoundCase,
    },
  },
  {
    method: 'get',
    path: '/products/{id}/stock',
    operationId: 'getProductStock',
    tag: 'products',
    summary: 'Query a product’s stock',
    description:
      'How many units may be ordered now. POST /orders refuses a line asking for more than this. Stock is set by the catalogue import (the admin backend); orders do not reserve it.',
    params: productIdParams,
    responses: {
      200: {
        description: 'The stock level.',
        body: stockLevel,
        headers: stockHeaders,
      },
      304: notModified(stockHeaders),
    },
    problems: {
      'validation-failed': `The id is not a positive integer. ${noQueryParameters}`,
      'not-found': productNotFoundCase,
    },
  },
  {
    method: 'get',
    path: '/categories',
    operationId: 'listCategories',
    tag: 'products',
    summary: 'List the categories',
    description: 'Static master data: cacheable for an hour.',
    responses: {
      200: {
        description: 'The categories.',
        body: z.array(category),
        headers: categoryListHeaders,
      },
      304: notModified(categoryListHeaders),
    },
    problems: { 'validation-failed': noQueryParameters },
  },
  {
    method: 'get',
    path: '/categories/{id}',
    operationId: 'getCategory',
    tag: 'products',
    summary: 'Read a category and its products',
    description:
      'The category’s name and its products’ ids and names. Shared caches may keep it 300 s (`Surrogate-Key: category-<id>`, purged when an import changes it).',
    params: z.object({
      id: z
        .string()
        .regex(/^[a-z0-9-]{1,100}$/)
        .meta({ description: 'Such as kitchen.' }),
    }),
    responses: {
      200: {
        description: 'The category.',
        body: category.extend({ products: z.array(productSummary) }).meta({ id: 'CategoryWithProducts' }),
        headers: { ETag: true, 'Cache-Control': 'public, s-maxage=300', 'Surrogate-Key': true },
      },
      304: notModified({ ETag: true, 'Cache-Control': 'public, s-maxage=300', 'Surrogate-Key': true }),
    },
    problems: {
      'validation-failed': `The id is not a category id. ${noQueryParameters}`,
      'not-found':
        'There is no category with this id. The answer carries `Surrogate-Key: category-<id>`, so that adding the category purges it from caches.',
    },
  },
  {
    method: 'get',
    path: '/search',
    operationId: 'searchProducts',
    tag: 'products',
    summary: 'Search products by name',
    description: 'Case-insensitive substring match on product names, by id, in the page envelope.',
    query: searchQuery,
    responses: {
      200: {
        description: 'A page of matching products.',
        body: pageOf(productSummary, 'ProductSearchPage'),
        headers: searchHeaders,
      },
      304: notModified(searchHeaders),
    },
    problems: { 'validation-failed': 'q is missing or empty, or page or perPage is out of range.' },
  },
];
