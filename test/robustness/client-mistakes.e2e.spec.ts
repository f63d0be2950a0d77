import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemOf } from '../support/http.ts';
import { orderActor, type OrderActor } from '../support/orders.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

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
  ])('routing is case-sensitive and strict: %s -> 404, and serves nothing', async (_name, path) => {
    const response = await staff.get(path(orderId));
    await expectProblem(response, 404, 'not-found');
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

  it.each([
    ['after', '9223372036854775808'],
    ['before', '99999999999999999999999999999999999999'],
  ])('/audit/events?%s= beyond what the log can hold -> 400', async (bound, value) => {
    const response = await auditor.get(`/audit/events?${bound}=${value}`);
    if (process.env['EVENTSTORE_URL'] && bound === 'after') return expect(response.status).toBe(200);
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
});
