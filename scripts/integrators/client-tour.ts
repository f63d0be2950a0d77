/**
 * The README's quick tour, through a client an integrator would generate from the API document:
 * `openapi-typescript` makes the types of .integrators/api.ts from the document, `openapi-fetch` sends the
 * requests. scripts/integrators/run.sh generates the types, type-checks this file against them (tsc, with
 * the project's strict options: a document whose types do not fit the service's own answers fails here,
 * before anything runs) and runs it against a service it started:
 *
 *   BASE_URL=http://127.0.0.1:3000 TOUR_PASSWORD=... node scripts/integrators/client-tour.ts
 *
 * The users customer@, staff@ and admin@tour.example must exist with the password TOUR_PASSWORD (run.sh
 * adds them with the admin CLI). Each step prints one line; the first failure stops the tour (exit 1).
 */
import createClient from 'openapi-fetch';
import type { paths } from '../../.integrators/api.ts';

const baseUrl = process.env['BASE_URL'] ?? 'http://127.0.0.1:3000';
const password = process.env['TOUR_PASSWORD'] ?? '';

const client = createClient<paths>({ baseUrl });

/** The answer's data, or the tour stops with its status and problem. */
const expectData = <Data>(
  step: string,
  result: { data?: Data; error?: unknown; response: Response },
): Data => {
  if (result.data === undefined) {
    throw new Error(`${step}: ${result.response.status} ${JSON.stringify(result.error)}`);
  }
  process.stdout.write(`[client] ${step}: ${result.response.status}\n`);
  return result.data;
};

const signIn = async (role: 'customer' | 'staff' | 'admin') => {
  const tokens = expectData(
    `POST /auth/token as ${role}`,
    await client.POST('/auth/token', {
      body: { grant_type: 'password', username: `${role}@tour.example`, password },
    }),
  );
  return { headers: { Authorization: `Bearer ${tokens.access_token}` } };
};

const customer = await signIn('customer');
const staff = await signIn('staff');

// A product as the catalogue lists it, read again by its own id: the id is an integer in both places.
const products = expectData('GET /products', await client.GET('/products'));
const first = products[0];
if (!first) throw new Error('GET /products: no product');
const product = expectData(
  `GET /products/${first.id}`,
  await client.GET('/products/{id}', { params: { path: { id: first.id } } }),
);
const stock = expectData(
  `GET /products/${product.id}/stock`,
  await client.GET('/products/{id}/stock', { params: { path: { id: product.id } } }),
);
if (stock.productId !== product.id) throw new Error('the stock names another product');

const me = expectData('GET /users/me', await client.GET('/users/me', customer));
const address = expectData(
  'POST /users/me/addresses',
  await client.POST('/users/me/addresses', {
    ...customer,
    body: { street: '1 Main St', city: 'Lyon', postalCode: '69001', country: 'FR' },
  }),
);

const placed = expectData(
  'POST /orders',
  await client.POST('/orders', {
    ...customer,
    body: { items: [{ productId: String(product.id), quantity: 2 }], shippingAddressId: address.id },
  }),
);
const orderId = placed.id;
const path = { params: { path: { orderId } } };

expectData(
  'POST /orders/{orderId}/confirm',
  await client.POST('/orders/{orderId}/confirm', { ...staff, ...path }),
);
expectData(
  'POST /orders/{orderId}/payments',
  await client.POST('/orders/{orderId}/payments', {
    ...staff,
    ...path,
    body: { amount: placed.total, reference: 'bank-transfer-42' },
  }),
);
expectData('POST /orders/{orderId}/ship', await client.POST('/orders/{orderId}/ship', { ...staff, ...path }));
const delivered = await client.POST('/orders/{orderId}/deliver', { ...staff, ...path });
expectData('POST /orders/{orderId}/deliver', delivered);
const consistencyToken = delivered.response.headers.get('Consistency-Token');
if (!consistencyToken) throw new Error('POST /orders/{orderId}/deliver: no Consistency-Token');

// Read your own write: the query waits until the read model has the delivery. The token is bound to the
// caller it was issued to, so staff, who delivered, read it back.
const order = expectData(
  'GET /orders/{orderId} with Consistency-Token',
  await client.GET('/orders/{orderId}', {
    ...staff,
    params: { path: { orderId }, header: { 'Consistency-Token': consistencyToken } },
  }),
);
if (order.status !== 'delivered') throw new Error(`the order read back is ${order.status}, not delivered`);
if (order.payments.length !== 1) throw new Error('the order read back has no payment');

// An earlier revision (staff may read one), and the order's page in the listing: integers both.
const atRevision = expectData(
  'GET /orders/{orderId}?revision=0',
  await client.GET('/orders/{orderId}', { ...staff, params: { path: { orderId }, query: { revision: 0 } } }),
);
if (atRevision.status !== 'pending') throw new Error(`revision 0 is ${atRevision.status}, not pending`);
const listing = expectData(
  'GET /orders?page=1&perPage=10',
  await client.GET('/orders', { ...customer, params: { query: { page: 1, perPage: 10 } } }),
);
if (!listing.data.some((listed) => listed.id === orderId)) throw new Error('the listing lacks the order');

const history = expectData(
  'GET /orders/{orderId}/events',
  await client.GET('/orders/{orderId}/events', { ...customer, ...path }),
);
process.stdout.write(
  `[client] ${me.email}'s order ${orderId}: ${order.status}, ${order.total.amount} ${order.total.currency}; ` +
    `history: ${history.map((event) => event.type).join(', ')}\n`,
);
