import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * helmet's security headers on every response. The Content-Security-Policy lets a page served from this
 * origin (the Swagger UI at /docs) load its own scripts, styles, images and data, and nothing from
 * elsewhere. helmet sets no caching header (Cache-Control, Pragma, ETag, Vary stay with cache-control.ts
 * and representation.ts).
 */
const helmetMiddleware = () =>
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

/**
 * The headers helmet sets, worked out once: every directive above is a constant, so every response gets
 * the same ones. Running helmet's thirteen middlewares on each request had cost a few per cent of the CPU
 * of a GET /products/{id} (issue 9's profile, BENCHMARKS.md).
 */
const headersOf = (middleware: RequestHandler): [string, string][] => {
  const headers = new Map<string, string>();
  let finished = false;
  const response = {
    setHeader: (name: string, value: string) => headers.set(name, value),
    removeHeader: (name: string) => headers.delete(name),
  };
  void middleware(
    {} as Parameters<RequestHandler>[0],
    response as unknown as Parameters<RequestHandler>[1],
    (error?: unknown) => {
      if (error) throw error as Error;
      finished = true;
    },
  );
  if (!finished) throw new Error('helmet did not set its headers synchronously');
  return [...headers];
};

export const securityHeaders = (): RequestHandler => {
  const headers = headersOf(helmetMiddleware());
  return (_request, response, next) => {
    for (const [name, value] of headers) response.setHeader(name, value);
    next();
  };
};
