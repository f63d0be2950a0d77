import type { RequestHandler } from 'express';
import type { HttpModule } from './http-module.ts';
import { isUnderAny } from './path-prefixes.ts';
import { inSequence } from './in-sequence.ts';

type Mounted = { paths: readonly string[] | undefined; router: RequestHandler };

/** `/orders` of `/orders/1/confirm`; `/` of `/`. */
const firstSegment = (path: string): string => {
  const end = path.indexOf('/', 1);
  return end === -1 ? path : path.slice(0, end);
};

/**
 * The features' modules as one layer of the app: a request enters only the modules whose paths cover it,
 * in the order the modules were given, found by its first path segment; a module that names no paths is
 * entered by every request. Walking every module's routers for every request cost each route the layers
 * of all the modules mounted before it (and, past a hundred layers in one pass, Express's router
 * continues in a setImmediate).
 */
export const dispatchToModules = (modules: readonly HttpModule[]): RequestHandler => {
  const mounted: Mounted[] = modules.map(({ paths, routers }) => ({ paths, router: inSequence(routers) }));
  const everywhere = mounted.filter(({ paths }) => paths === undefined);
  const bySegment = new Map<string, Mounted[]>();
  for (const segment of new Set(mounted.flatMap(({ paths }) => (paths ?? []).map(firstSegment)))) {
    bySegment.set(
      segment,
      mounted.filter(
        ({ paths }) => paths === undefined || paths.some((path) => firstSegment(path) === segment),
      ),
    );
  }

  return (request, response, next) => {
    const candidates = bySegment.get(firstSegment(request.path)) ?? everywhere;
    let index = 0;
    const tryNext = (error?: unknown): void => {
      if (error) return next(error);
      while (index < candidates.length) {
        const { paths, router } = candidates[index++]!;
        if (paths === undefined || isUnderAny(request.path, paths)) {
          router(request, response, tryNext);
          return;
        }
      }
      next();
    };
    tryNext();
  };
};
