import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemOf } from '../support/http.ts';
import { sendRaw, type RawResponse } from '../support/raw-http.ts';
import { orderActor, type OrderActor } from '../support/orders.ts';
import { startTestService, testTarget, type TestService } from '../support/test-service.ts';

/**
 * Mistakes a client makes, found by trying the service as a stranger would: each is the client's fault, so
 * each is a 4xx problem, never a 500, and none changes anything.
 */
describe('client mistakes answer 4xx problem details, never 5xx', () => {
  let service: TestService;
  let staff: OrderActor;
  let auditor: OrderActor;
  let orderId: string;

  beforeAll(async () => {
    service = await startTestService();
    staff = await orderActor(service, ['staff', 'auditor']);
    auditor = await orderActor(service, ['auditor']);
    orderId = (await staff.placeOrder()).order.id;
  });
  afterAll(() => service.stop());

  const expectProblem = async (response: Response, status: number, kind: string) => {
    expect(response.status).toBe(status);
    expect(await problemOf(response)).toMatchObject({ type: `https://orders.example/problems/${kind}` });
  };

  it.each(['/orders/%ZZ', '/products/%E0%A4%A', '/orders?status=%', '/search?q=%E0%A4%A', '/%C0'])(
    'a path or query whose percent-escapes do not decode: %s -> 400',
    async (path) => {
      await expectProblem(await staff.get(path), 400, 'validation-failed');
    },
  );

  it.each([
    ['/Orders/{id}', (id: string) => `/Orders/${id}`],
    ['/orders/{id}/', (id: string) => `/orders/${id}/`],
    ['/USERS/ME', () => '/USERS/ME'],
    ['/users/me/', () => '/users/me/'],
    ['/PRODUCTS/1001', () => '/PRODUCTS/1001'],
    ['/products/1001/', () => '/products/1001/'],
    ['/Audit/Events', () => '/Audit/Events'],
  ])(
    'routing is case-sensitive and strict: %s -> 404, and serves nothing, stored by no one',
    async (_name, path) => {
      const response = await staff.get(path(orderId));
      await expectProblem(response, 404, 'not-found');
      const expected = /^\/(orders|users\/me)/.test(path(orderId))
        ? 'private, no-cache'
        : /^\/products/.test(path(orderId))
          ? 'public, s-maxage=300'
          : 'no-store';
      expect(response.headers.get('cache-control')).toBe(expected);
    },
  );

  it.each([
    ['GET', '/users/me/'],
    ['OPTIONS', '/users/me/'],
    ['GET', '/users/me/addresses/'],
    ['DELETE', '/users/me/addresses/'],
    ['GET', '/users/me/sessions/'],
  ])(
    '%s %s without a token: 404, as with one (no route there asks for credentials)',
    async (method, path) => {
      const response = await fetch(`${service.url}${path}`, { method });
      await expectProblem(response, 404, 'not-found');
      expect(response.headers.get('www-authenticate')).toBeNull();
    },
  );

  it('a listing refuses a query parameter it does not know, rather than ignore the filter meant', async () => {
    const response = await staff.get('/orders?status[]=pending');
    expect(response.status).toBe(400);
    expect((await problemOf(response)).errors).toEqual([
      { field: 'status[]', message: 'unknown query parameter' },
    ]);
  });

  it.each(['gzip', 'deflate', 'br'])('a %s body that does not decode -> 400', async (encoding) => {
    const response = await fetch(`${service.url}/orders`, {
      method: 'POST',
      headers: { ...staff.auth, 'Content-Type': 'application/json', 'Content-Encoding': encoding },
      body: 'this is not compressed',
    });
    await expectProblem(response, 400, 'validation-failed');
  });

  it('a gzip body that decodes is read as usual', async () => {
    const addressId = await staff.addAddress();
    const body = gzipSync(
      JSON.stringify({ items: [{ productId: '1001', quantity: 1 }], shippingAddressId: addressId }),
    );
    const response = await fetch(`${service.url}/orders`, {
      method: 'POST',
      headers: { ...staff.auth, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body,
    });
    expect(response.status).toBe(201);
    const order = (await response.json()) as { items: { productId: string; quantity: number }[] };
    expect(order.items).toEqual([expect.objectContaining({ productId: '1001', quantity: 1 })]);
  });

  it('JSON nested deeper than 64 levels, with an Idempotency-Key -> 400, nothing appended', async () => {
    const before = await auditor.get('/audit/events?limit=1000');
    const deep = `${'['.repeat(40_000)}${']'.repeat(40_000)}`;
    const response = await fetch(`${service.url}/orders`, {
      method: 'POST',
      headers: { ...staff.auth, 'Content-Type': 'application/json', 'Idempotency-Key': 'deep-1' },
      body: `{"items":${deep}}`,
    });
    await expectProblem(response, 400, 'validation-failed');
    const sixtyFour = `${'['.repeat(63)}${']'.repeat(63)}`;
    const shallowEnough = await staff.post('/orders', JSON.parse(`{"items":${sixtyFour}}`) as object);
    await expectProblem(shallowEnough, 400, 'validation-failed');
    const after = await auditor.get('/audit/events?limit=1000');
    expect(((await after.json()) as { data: unknown[] }).data).toHaveLength(
      ((await before.json()) as { data: unknown[] }).data.length,
    );
  });

  it('a member named twice, at the top or deep inside, also gzipped -> 400 naming it, nothing placed', async () => {
    const addressId = await staff.addAddress();
    const before = await auditor.get('/audit/events?limit=1000');
    const item = '{"productId":"1001","quantity":1}';
    for (const [body, field, encoding] of [
      [`{"items":[],"items":[${item}],"shippingAddressId":"${addressId}"}`, 'items', 'identity'],
      [
        `{"items":[{"productId":"1001","quantity":1,"quantity":999}],"shippingAddressId":"${addressId}"}`,
        'items[0].quantity',
        'identity',
      ],
      [
        `{"items":[${item}],"\u0073hippingAddressId":"x","shippingAddressId":"${addressId}"}`,
        'shippingAddressId',
        'gzip',
      ],
    ] as const) {
      const response = await fetch(`${service.url}/orders`, {
        method: 'POST',
        headers: { ...staff.auth, 'Content-Type': 'application/json', 'Content-Encoding': encoding },
        body: encoding === 'gzip' ? gzipSync(body) : body,
      });
      expect(response.status, body).toBe(400);
      expect((await problemOf(response)).errors, body).toEqual([
        { field, message: 'is given more than once: give each member once' },
      ]);
    }
    const after = await auditor.get('/audit/events?limit=1000');
    expect(((await after.json()) as { data: unknown[] }).data).toHaveLength(
      ((await before.json()) as { data: unknown[] }).data.length,
    );
  });

  it.each([
    ['after', '9223372036854775808'],
    ['before', '999999999999999999999999999999999999999'],
    ['after', '5'],
  ])('/audit/events?%s=%s, a position the log never issued -> 400 or a page', async (bound, value) => {
    const response = await auditor.get(`/audit/events?${bound}=${value}`);
    // Which of these numbers are places in each log (a page), the others 400. node:sqlite's positions are
    // row ids: every whole number up to 2^63 - 1 (5 too). PostgreSQL's pack (transaction id, serial) into 128
    // bits: 5 and 2^63 both read as transaction 0, before every event. EventStoreDB's pack (commit, prepare):
    // 2^63 and 5 unpack to commit 0 and a prepare past it, which no event has. 10^39 - 1 is past 128 bits.
    const log = process.env['EVENTSTORE_URL']
      ? 'eventstoredb'
      : testTarget() === 'distributed'
        ? 'postgres'
        : 'sqlite';
    const places = { sqlite: ['5'], postgres: ['5', '9223372036854775808'], eventstoredb: [] as string[] };
    if (places[log].includes(value)) return expect(response.status).toBe(200);
    await expectProblem(response, 400, 'validation-failed');
  });

  it('a body of a thousand unknown keys lists at most 100 errors, the last saying how many more', async () => {
    const body = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`unknown${i}`, i]));
    const response = await staff.post('/orders', body);
    expect(response.status).toBe(400);
    const { errors } = (await problemOf(response)) as { errors: { field: string; message: string }[] };
    expect(errors).toHaveLength(100);
    expect(errors.at(-1)).toEqual({
      field: '(more)',
      message: expect.stringMatching(/^\d+ more errors were left out$/),
    });
    expect(Number(/^(\d+)/.exec(errors.at(-1)!.message)![1])).toBeGreaterThan(900);
  });

  it('a JSON body whose bytes are not UTF-8, or with a lone surrogate escape -> 400', async () => {
    const addressId = await staff.addAddress();
    const valid = { items: [{ productId: '1001', quantity: 1 }], shippingAddressId: addressId };
    const invalidUtf8 = Buffer.concat([
      Buffer.from(JSON.stringify({ ...valid, note: 'caf' }).slice(0, -2)),
      Buffer.from([0xe9, 0x22, 0x7d]),
    ]);
    const latin1 = await fetch(`${service.url}/orders`, {
      method: 'POST',
      headers: { ...staff.auth, 'Content-Type': 'application/json' },
      body: invalidUtf8,
    });
    expect(latin1.status).toBe(400);
    expect((await problemOf(latin1)).errors).toEqual([{ field: 'body', message: 'not valid UTF-8' }]);
    const surrogate = await staff.post(
      '/orders',
      JSON.parse(JSON.stringify({ ...valid, note: 'x' })) as object,
    );
    expect(surrogate.status).toBe(201);
    const lone = await fetch(`${service.url}/orders`, {
      method: 'POST',
      headers: { ...staff.auth, 'Content-Type': 'application/json' },
      body: `${JSON.stringify(valid).slice(0, -1)},"note":"\\ud800x"}`,
    });
    expect(lone.status).toBe(400);
    expect((await problemOf(lone)).errors).toEqual([
      { field: 'body', message: 'has a string that is not well-formed Unicode (a lone surrogate)' },
    ]);
  });

  it('a form body whose bytes, or percent-escapes, are not UTF-8 -> 400, as a JSON body or a query is', async () => {
    const form = (body: Buffer | string) =>
      fetch(`${service.url}/auth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
      });
    const prefix = 'grant_type=password&password=long-enough&username=';
    for (const body of [
      Buffer.concat([Buffer.from(prefix), Buffer.from([0xff, 0xfe])]),
      `${prefix}%FF%FE`,
      `${prefix}%E0%A4%A`,
      `${prefix}%ZZ`,
    ]) {
      const response = await form(body);
      expect(response.status, String(body)).toBe(400);
      expect((await problemOf(response)).errors).toEqual([{ field: 'body', message: 'not valid UTF-8' }]);
    }
    // Well-formed escapes and `+` still decode: a wrong password, not a malformed body.
    expect((await form(`${prefix}caf%C3%A9+x%40example.com`)).status).toBe(401);
  });

  describe('over raw sockets, as sent', () => {
    const raw = async (request: string, options: { firstResponse?: boolean } = {}) => {
      const [origin] = service.apiOrigins();
      const { responses, timedOut } = await sendRaw(origin!, Buffer.from(request, 'latin1'), {
        timeoutMs: 3_000,
        ...options,
      });
      expect(timedOut).toBe(false);
      const [response] = responses;
      expect(response).toBeDefined();
      return response!;
    };
    const expectRawProblem = (response: RawResponse, status: number) => {
      expect(response.status).toBe(status);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(response.body.toString()) as { status: number }).toMatchObject({ status });
    };

    it('a body declared larger than 100 kB is refused with 413 at once, not read first', async () => {
      const started = performance.now();
      const response = await raw(
        'POST /orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{',
        { firstResponse: true },
      );
      expectRawProblem(response, 413);
      expect(performance.now() - started).toBeLessThan(2_000);
    });

    it.each([
      ['no Host header', 'GET /products/1001 HTTP/1.1\r\nConnection: close\r\n\r\n'],
      ['two Host headers', 'GET /products/1001 HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n'],
      ['HTTP/2.0 in a request line', 'GET /products/1001 HTTP/2.0\r\nHost: x\r\nConnection: close\r\n\r\n'],
      ['a Host with a space', 'GET /products/1001 HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n'],
      ['an empty Host', 'GET /products/1001 HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n'],
      [
        'a Host port past 65535',
        'GET /products/1001 HTTP/1.1\r\nHost: shop.example:99999\r\nConnection: close\r\n\r\n',
      ],
      [
        'two Authorization headers',
        'GET /users/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\nConnection: close\r\n\r\n',
      ],
      [
        'two Content-Type headers',
        'POST /orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
      ],
    ])('%s -> 400 problem details', async (_name, request) => {
      expectRawProblem(await raw(request), 400);
    });

    it.each([
      ['a name and port', 'shop.example:8080'],
      ['an IPv4 address', '127.0.0.1'],
      ['an IPv6 literal and port', '[::1]:3000'],
      ['a name in capitals, with a trailing dot', 'SHOP.Example.'],
    ])('a Host of %s is served', async (_name, host) => {
      // /health: every process of either mode answers it (the first origin may be a command API).
      const response = await raw(`GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(response.status).toBe(200);
    });

    it('an Expect other than 100-continue -> 417 problem details', async () => {
      expectRawProblem(await raw('GET /products/1001 HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n'), 417);
    });

    it('CONNECT -> 405 problem details: this is not a proxy', async () => {
      const response = await raw('CONNECT localhost:22 HTTP/1.1\r\nHost: localhost:22\r\n\r\n');
      expectRawProblem(response, 405);
      expect(response.headers['allow']).toBeDefined();
    });
  });
});
