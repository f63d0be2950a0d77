import type { Router } from 'express';
import { createRouter } from '../../infrastructure/http/router.ts';
import {
  sendRepresentation,
  strongEtag,
  type Representation,
} from '../../infrastructure/http/representation.ts';
import { loadConsoleAssets, type ConsoleAssets } from './console-assets.ts';
import { commandForwardPath, forwardCommand } from './command-forward.ts';

/**
 * The console's own Content-Security-Policy, stricter than the API's (security-headers.ts, which /docs
 * needs): scripts, styles, images and requests from this origin only; no inline script or style, no eval,
 * no plugin, no frame, no <base>.
 */
export const consoleContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const escapeAttribute = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

/**
 * The page every view of the console starts from: no content of its own, the style sheet and the entry
 * module under the assets' version, where the console sends its commands, and which other processes'
 * metrics this one serves (space-separated names, for GET /metrics?process={name}).
 */
export const consoleShell = (
  { version }: Pick<ConsoleAssets, 'version'>,
  commandBase: string,
  processes: readonly string[] = [],
) => {
  const asset = (path: string) => `/console/assets/${version}/${path}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="order-console-command-base" content="${escapeAttribute(commandBase)}">
<meta name="order-console-processes" content="${escapeAttribute(processes.join(' '))}">
<title>Order console</title>
<link rel="icon" href="${asset('icon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${asset('console.css')}">
<link rel="modulepreload" href="${asset('vendor/preact.js')}">
<link rel="modulepreload" href="${asset('vendor/hooks.js')}">
<link rel="modulepreload" href="${asset('vendor/htm.js')}">
<script type="module" src="${asset('main.js')}"></script>
</head>
<body>
<div id="console"><p class="boot">Loading the console…</p></div>
<noscript><p>The console is a JavaScript application: enable JavaScript for this site.</p></noscript>
</body>
</html>
`;
};

/**
 * GET /console (the page, `no-cache`), GET /console/assets/{version}/{file} (its modules, style sheet and
 * icon, cacheable for a year: the version is a hash of them all), and, when the console runs in a query
 * API that was told where the command API is, POST /console/command/... (command-forward.ts).
 *
 * Without `commandApiUrl` the console sends its commands to its own origin: the embedded process serves
 * them, and in the distributed mode a method router in front sends them to the command API. `processes`
 * only tells the page which GET /metrics?process={name} the process serves (start-http-service.ts).
 */
export const consoleRoutes = ({
  commandApiUrl,
  processes = [],
}: { commandApiUrl?: string | undefined; processes?: readonly string[] } = {}): Router => {
  const assets = loadConsoleAssets();
  const page = Buffer.from(
    consoleShell(assets, commandApiUrl === undefined ? '' : commandForwardPath, processes),
  );
  const shell: Representation = {
    body: page,
    etag: strongEtag(page),
    contentType: 'text/html; charset=utf-8',
    cacheControl: 'no-cache',
  };
  const router = createRouter();
  router.use('/console', (_request, response, next) => {
    response.setHeader('Content-Security-Policy', consoleContentSecurityPolicy);
    next();
  });
  router.get('/console', (request, response) => sendRepresentation(request, response, shell));
  router.get('/console/assets/:version/*file', (request, response, next) => {
    const file = (request.params['file'] as unknown as string[]).join('/');
    const asset = request.params['version'] === assets.version ? assets.files.get(file) : undefined;
    if (!asset) return next();
    sendRepresentation(request, response, asset);
  });
  // Every method of /console/command/...: POST forwarded, OPTIONS (204) and the others (405) answered with
  // the same Allow as on every other path, all by one path matcher; any other path there answers 404.
  if (commandApiUrl !== undefined) router.use(forwardCommand(commandApiUrl));
  return router;
};
