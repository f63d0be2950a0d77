import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Router } from 'express';
import { createRouter } from '../router.ts';
import {
  jsonRepresentation,
  sendRepresentation,
  strongEtag,
  type Representation,
} from '../representation.ts';

/** Swagger UI's files, from the npm package: the reference works offline and loads nothing from elsewhere. */
const swaggerUiDirectory = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Only what the page loads: not the package's other files (its demo page points at the internet). */
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** A fixed text or file as a representation: a strong ETag, so preconditions and 304s work as everywhere. */
const fixed = (body: Buffer, contentType: string, cacheControl: string): Representation => ({
  body,
  etag: strongEtag(body),
  contentType,
  cacheControl,
});

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Order and Product Service: API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/start.js"></script>
</body>
</html>
`;

// A file, not an inline script: the Content-Security-Policy allows scripts from this origin only.
// "Try it out" sends requests to the document's server, and the policy lets the page reach its own origin
// only (connect-src 'self'): the page shows the document with the address it was opened on as its server,
// so it works from http://127.0.0.1:3000/docs as from http://localhost:3000/docs or behind a proxy. The
// document itself (/openapi.json, what clients are generated from) keeps PUBLIC_BASE_URL.
const startScript = `const options = {
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: true,
  persistAuthorization: false,
};
fetch('/openapi.json')
  .then((response) => {
    if (!response.ok) throw new Error('GET /openapi.json answered ' + response.status);
    return response.json();
  })
  .then((spec) => {
    spec.servers = [{ url: window.location.origin, description: 'The address this page was opened on' }];
    window.ui = SwaggerUIBundle({ ...options, spec });
  })
  .catch(() => {
    window.ui = SwaggerUIBundle({ ...options, url: '/openapi.json' });
  });
`;

/** What the reference page loads besides itself: served with GET, left out of the document. */
export const apiDocsAssetPaths = ['/docs/start.js', '/docs/assets/{file}'];

/**
 * GET /openapi.json (the document) and GET /docs (an interactive reference, Swagger UI, served from its npm
 * package). The document may be fetched by anyone: it describes the public interface and holds no secret.
 */
export const apiDocsRoutes = (document: object): Router => {
  const router = createRouter();
  const documentRepresentation = jsonRepresentation(document, { cacheControl: 'public, no-cache' });

  router.get('/openapi.json', (request, response) => {
    sendRepresentation(request, response, documentRepresentation);
  });
  const pageRepresentation = fixed(Buffer.from(page), 'text/html; charset=utf-8', 'public, no-cache');
  const startRepresentation = fixed(
    Buffer.from(startScript),
    'text/javascript; charset=utf-8',
    'public, max-age=3600',
  );
  // Swagger UI's files are read at their first request (1.9 MB in all), then kept.
  const assetRepresentations = new Map<string, Representation>();
  const assetRepresentation = (file: string) => {
    let representation = assetRepresentations.get(file);
    if (!representation) {
      const body = readFileSync(join(swaggerUiDirectory, file));
      representation = fixed(body, assets[file]!, 'public, max-age=86400');
      assetRepresentations.set(file, representation);
    }
    return representation;
  };

  router.get('/docs', (request, response) => {
    sendRepresentation(request, response, pageRepresentation);
  });
  router.get('/docs/start.js', (request, response) => {
    sendRepresentation(request, response, startRepresentation);
  });
  router.get('/docs/assets/:file', (request, response, next) => {
    const file = request.params['file'] as string;
    if (!Object.hasOwn(assets, file)) return next();
    sendRepresentation(request, response, assetRepresentation(file));
  });
  return router;
};
