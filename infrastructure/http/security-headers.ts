import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * helmet's security headers on every response. The Content-Security-Policy lets a page served from this
 * origin (the Swagger UI at /docs) load its own scripts, styles, images and data, and nothing from
 * elsewhere. helmet sets no caching header (Cache-Control, Pragma, ETag, Vary stay with cache-control.ts
 * and representation.ts).
 */
export const securityHeaders = (): RequestHandler =>
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'", 'data:'],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'self'"],
        scriptSrcAttr: ["'none'"],
      },
    },
  });
