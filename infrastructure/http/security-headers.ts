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
    // Set per request below: only on a request that came over TLS.
    strictTransportSecurity: false,
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

/** helmet's default, a year for this host and its subdomains. */
export const strictTransportSecurity = 'max-age=31536000; includeSubDomains';

/**
 * helmet's headers on every response; Strict-Transport-Security only on a request that came over TLS
 * (RFC 6797, section 7.2: a host sends it over secure transport only, and a browser ignores it over plain
 * HTTP). Express's `request.secure` says so: a TLS connection, or `X-Forwarded-Proto: https` from a proxy
 * that TRUST_PROXY (the app's `trust proxy`) trusts. PUBLIC_BASE_URL plays no part: a request over plain
 * HTTP gets none, whatever address the service advertises.
 */
export const securityHeaders = (): RequestHandler => {
  const headers = headersOf(helmetMiddleware());
  return (request, response, next) => {
    for (const [name, value] of headers) response.setHeader(name, value);
    if (request.secure) response.setHeader('Strict-Transport-Security', strictTransportSecurity);
    next();
  };
};
