import { Router } from 'express';
import { z } from 'zod';
import { jsonRepresentation, sendRepresentation } from '../infrastructure/http/representation.ts';

/**
 * Where everything starts: what `GET /` answers. Paths relative to the service's base URL, as every link
 * of the API; the interactive reference (`/docs`) and the document (`/openapi.json`) describe the rest.
 */
export const serviceIndex = {
  name: 'Order and Product Service',
  description: 'Orders, a read-only product catalogue, token authentication and webhook notifications.',
  links: {
    docs: '/docs',
    console: '/console',
    openapi: '/openapi.json',
    health: '/health',
    ready: '/ready',
    metrics: '/metrics',
    products: '/products',
    categories: '/categories',
    token: '/auth/token',
    jwks: '/.well-known/jwks.json',
  },
} as const;

/** The index changes only with a release: an hour in any cache, then revalidated by its ETag. */
export const serviceIndexCacheControl = 'public, max-age=3600';

export const serviceIndexSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  links: z
    .strictObject(
      Object.fromEntries(Object.keys(serviceIndex.links).map((name) => [name, z.string()])) as Record<
        keyof typeof serviceIndex.links,
        z.ZodString
      >,
    )
    .meta({ description: 'Paths relative to the base URL.' }),
});

/** GET / (and HEAD): the index, with a strong ETag; 304 to If-None-Match. */
export const serviceIndexRoutes = (): Router => {
  const representation = jsonRepresentation(serviceIndex, { cacheControl: serviceIndexCacheControl });
  return Router().get('/', (request, response) => sendRepresentation(request, response, representation));
};
