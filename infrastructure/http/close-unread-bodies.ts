import { ServerResponse } from 'node:http';
import type { Express, Response } from 'express';
import { hasBody } from './request-body.ts';

/**
 * A response sent before its request's body was read whole (a refusal: 401, 413, 429, 503, ...) closes its
 * connection: the rest of that body would otherwise be read and thrown away first, for as long as the client
 * takes to send it, and a stalled client would keep the connection. Applied in writeHead, whoever answers.
 */
export const closeConnectionsWithUnreadBodies = (app: Express): void => {
  const writeHead = app.response.writeHead ?? ServerResponse.prototype.writeHead;
  app.response.writeHead = function (this: Response, ...args: Parameters<ServerResponse['writeHead']>) {
    if (!this.headersSent && !this.req.complete && hasBody(this.req.headers))
      this.setHeader('Connection', 'close');
    return writeHead.apply(this, args);
  } as unknown as Response['writeHead'];
};
