import type { Router } from 'express';
import type { HttpModule } from './http-module.ts';
import { isUnderAny } from './path-prefixes.ts';
import { createRouter } from './router.ts';

/**
 * A feature's module as one Express router: a request outside the module's paths leaves it at its first
 * layer (`next('router')`, Express's own way out of a router), one under them walks the module's routers in
 * order. A module that names no paths is entered by every request.
 */
export const moduleRouter = ({ paths, routers }: Pick<HttpModule, 'paths' | 'routers'>): Router => {
  const router = createRouter();
  if (paths !== undefined) {
    router.use((request, _response, next) => {
      next(isUnderAny(request.path, paths) ? undefined : 'router');
    });
  }
  if (routers.length > 0) router.use(...routers);
  return router;
};
