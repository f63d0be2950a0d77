const slash = '/'.charCodeAt(0);

/**
 * Whether a path is under one of the prefixes: `/orders` covers `/orders` and `/orders/...`, not
 * `/ordersfoo`; a prefix ending in `/` is taken literally. Case-sensitive, as the routing is.
 */
export const isUnderAny = (path: string, prefixes: readonly string[]): boolean =>
  prefixes.some(
    (prefix) =>
      path.startsWith(prefix) &&
      (prefix.endsWith('/') || path.length === prefix.length || path.charCodeAt(prefix.length) === slash),
  );
