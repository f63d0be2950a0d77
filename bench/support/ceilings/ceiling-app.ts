// What every ceiling server shares (issue 31): the least a route of the service must do, built from the
// service's own pieces where they exist. Express 5 with one router; the twelve security headers
// (infrastructure/http/security-headers.ts) and X-Request-Id (request-id.ts) on every response; with --log,
// the service's own log line per request (request-log.ts through after-response.ts, on the service's pino
// logger of create-logger.ts); the project's cached token verifier (infrastructure/auth/access-tokens.ts) where the
// route needs a bearer token. Nothing else of the service's stack: no load shedding, no metrics, no body
// deadline, no problem+json documents (an error is a bare status).
//
// A ceiling reads its configuration from a JSON file (argv[2]; see CeilingConfig) and prints its URL on
// stdout, as the bare servers do. The verifier takes the public key of the service's own signing key, so
// the benchmark sends every server the same token.
import { roles } from '../../../domain/identity/roles.ts';
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { createAccessTokenVerifier, type Principal } from '../../../infrastructure/auth/access-tokens.ts';
import { systemClock } from '../../../infrastructure/clock.ts';
import { afterResponse } from '../../../infrastructure/http/after-response.ts';
import { requestId } from '../../../infrastructure/http/request-id.ts';
import { logRequest } from '../../../infrastructure/http/request-log.ts';
import { securityHeaders } from '../../../infrastructure/http/security-headers.ts';
import { createLogger } from '../../../infrastructure/logging/create-logger.ts';

export type CeilingConfig = {
  /** The service's access-token key: its kid and public key (SPKI PEM), issuer and audience. */
  token: { kid: string; publicKeyPem: string; issuer: string; audience: string };
  /** Where a ceiling with a store keeps it. */
  dataDir: string;
  /** The rest is the route's own. */
  [key: string]: unknown;
};

export const ceilingConfig = <T extends object>(): CeilingConfig & T =>
  JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as CeilingConfig & T;

/** `--log`: the service's request log line (pino, info) on every request, written to stdout. */
export const withLogLine = process.argv.includes('--log');

/** The app every ceiling starts from: what the service's createHttpApp puts on every response. */
export const ceilingApp = (): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use(securityHeaders());
  app.use(requestId);
  if (withLogLine) app.use(afterResponse([logRequest(createLogger({ level: 'info' }))]));
  return app;
};

const bearer = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The project's cached verifier on the service's public key. Returns the principal (also kept on the
 * response's locals, where the log line finds the user id), or answers 401 itself and returns undefined.
 */
export const bearerAuth = (config: CeilingConfig) => {
  const publicKey = createPublicKey(config.token.publicKeyPem);
  const verifier = createAccessTokenVerifier({
    publicKeyFor: (kid) => (kid === config.token.kid ? publicKey : undefined),
    roles,
    issuer: config.token.issuer,
    audience: config.token.audience,
    clock: systemClock,
  });
  return (request: Request, response: Response): Principal | undefined => {
    const token = bearer.exec(request.headers.authorization ?? '')?.[1];
    try {
      if (token === undefined) throw new Error('no bearer token');
      const principal = verifier.verify(token);
      response.locals['principal'] = principal;
      return principal;
    } catch {
      response.status(401).setHeader('Cache-Control', 'no-store').end();
      return undefined;
    }
  };
};

/** Errors (a malformed JSON body, say) as a bare status, without the service's problem documents. */
export const bareErrors = (
  error: { status?: number },
  _request: Request,
  response: Response,
  _next: NextFunction,
) => {
  response
    .status(error.status ?? 500)
    .setHeader('Cache-Control', 'no-store')
    .end();
};

export const listen = (app: Express, onClose: () => void = () => {}) => {
  const server = app.listen(0, '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
  process.once('SIGTERM', () =>
    server.close(() => {
      onClose();
      // The batched log (create-logger.ts) writes what waits on exit.
      process.exit(0);
    }),
  );
  // Keep-alive connections of the load generator would hold close() open.
  process.once('SIGTERM', () => server.closeAllConnections());
};
