import { Router } from 'express';

/**
 * A router that matches paths exactly, as the app does: case-sensitive, and a trailing slash is another
 * path. One resource has one URL, so `/Orders/1` and `/products/1001/` answer 404 instead of serving the
 * resource past the rules keyed by path (the Cache-Control rules of docs/caching.md among them).
 */
export const createRouter = (): Router => Router({ caseSensitive: true, strict: true });
