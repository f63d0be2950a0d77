import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchToModules } from '../../infrastructure/http/module-dispatch.ts';
import { createRouter } from '../../infrastructure/http/router.ts';

/** A router answering GET `path` with `name`, and passing every other request on. */
const answering = (path: string, name: string) => {
  const router = createRouter();
  router.get(path, (_request, response) => {
    response.send(name);
  });
  return router;
};

/** A router that writes down every request that enters it, then passes it on. */
const entered: string[] = [];
const noting = (name: string) => {
  const router = createRouter();
  router.use((request, _response, next) => {
    entered.push(`${name} ${request.path}`);
    next();
  });
  return router;
};

describe('the features’ modules behind one dispatching layer', () => {
  let url: string;
  let server: ReturnType<express.Express['listen']>;

  beforeAll(async () => {
    const failing = createRouter();
    failing.get('/orders/fail', () => {
      throw new Error('boom');
    });
    const app = express();
    app.use(
      dispatchToModules([
        {
          routers: [noting('orders-command'), answering('/orders', 'orders-command'), failing],
          paths: ['/orders'],
        },
        { routers: [noting('orders-query'), answering('/orders/:id', 'orders-query')], paths: ['/orders'] },
        { routers: [noting('users'), answering('/users/me', 'users')], paths: ['/users/me'] },
        {
          routers: [noting('sessions'), answering('/users/me/sessions', 'sessions')],
          paths: ['/users/me/sessions'],
        },
        { routers: [noting('everywhere'), answering('/anything', 'everywhere')] },
      ]),
    );
    app.use((_request, response) => {
      response.status(404).send('not found');
    });
    app.use(((error: Error, _request, response, _next) => {
      response.status(500).send(error.message);
    }) satisfies ErrorRequestHandler);
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  const get = async (path: string) => {
    entered.length = 0;
    const response = await fetch(`${url}${path}`);
    return { status: response.status, body: await response.text(), entered: [...entered] };
  };

  it('tries the modules covering the path in the order given, and no other', async () => {
    expect(await get('/orders/1')).toEqual({
      status: 200,
      body: 'orders-query',
      entered: ['orders-command /orders/1', 'orders-query /orders/1'],
    });
    expect(await get('/orders')).toEqual({
      status: 200,
      body: 'orders-command',
      entered: ['orders-command /orders'],
    });
  });

  it('enters a module only under its own paths, not beside them in the same first segment', async () => {
    expect(await get('/users/me')).toMatchObject({ body: 'users', entered: ['users /users/me'] });
    expect(await get('/users/me/sessions')).toMatchObject({
      body: 'sessions',
      entered: ['users /users/me/sessions', 'sessions /users/me/sessions'],
    });
    expect(await get('/users/meet')).toEqual({
      status: 404,
      body: 'not found',
      entered: ['everywhere /users/meet'],
    });
  });

  it('lets every request into a module that names no paths, and passes what no module answers on', async () => {
    expect(await get('/anything')).toEqual({
      status: 200,
      body: 'everywhere',
      entered: ['everywhere /anything'],
    });
    expect(await get('/nowhere/at/all')).toEqual({
      status: 404,
      body: 'not found',
      entered: ['everywhere /nowhere/at/all'],
    });
  });

  it('hands an error thrown in a module to the error handlers', async () => {
    expect(await get('/orders/fail')).toMatchObject({ status: 500, body: 'boom' });
  });
});
