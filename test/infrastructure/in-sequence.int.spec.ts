import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inSequence } from '../../infrastructure/http/in-sequence.ts';

const ran: string[] = [];
const step =
  (name: string): RequestHandler =>
  (_request, _response, next) => {
    ran.push(name);
    next();
  };

describe('handlers run in sequence as one layer', () => {
  let url: string;
  let server: ReturnType<express.Express['listen']>;

  beforeAll(async () => {
    const app = express();
    app.get('/answer', inSequence([step('a'), step('b'), (_request, response) => void response.send('c')]));
    app.get(
      '/thrown',
      inSequence([
        step('a'),
        () => {
          throw new Error('thrown');
        },
        step('never'),
      ]),
    );
    app.get(
      '/rejected',
      inSequence([step('a'), async () => Promise.reject(new Error('rejected')), step('never')]),
    );
    app.get(
      '/passed',
      inSequence([step('a'), (_request, _response, next) => next(new Error('passed')), step('never')]),
    );
    app.get('/through', inSequence([step('a'), step('b')]));
    app.get('/empty', inSequence([]));
    app.use((_request, response) => {
      ran.push('after');
      response.status(404).send('not found');
    });
    app.use(((error: Error, _request, response, _next) => {
      response.status(500).send(error.message);
    }) satisfies ErrorRequestHandler);
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://localhost:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  const get = async (path: string) => {
    ran.length = 0;
    const response = await fetch(`${url}${path}`);
    return { status: response.status, body: await response.text(), ran: [...ran] };
  };

  it('runs each handler in order until one answers', async () => {
    expect(await get('/answer')).toEqual({ status: 200, body: 'c', ran: ['a', 'b'] });
  });

  it('passes on to the next layer when every handler passes', async () => {
    expect(await get('/through')).toEqual({ status: 404, body: 'not found', ran: ['a', 'b', 'after'] });
    expect(await get('/empty')).toEqual({ status: 404, body: 'not found', ran: ['after'] });
  });

  it('hands a thrown, rejected or passed error to the error handler and runs nothing after it', async () => {
    expect(await get('/thrown')).toEqual({ status: 500, body: 'thrown', ran: ['a'] });
    expect(await get('/rejected')).toEqual({ status: 500, body: 'rejected', ran: ['a'] });
    expect(await get('/passed')).toEqual({ status: 500, body: 'passed', ran: ['a'] });
  });
});
