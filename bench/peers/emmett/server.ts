// The Emmett peer of issue 31: POST /orders and GET /orders/{id} built the way Emmett's own
// samples/webApi/expressjs-with-sqlite builds its shopping carts (Emmett 0.42: getApplication and `on` of
// emmett-expressjs, a CommandHandler over the SQLite event store of emmett-sqlite, an inline projection
// updating a read table in the append's transaction, the GET reading that table through the pool). What it
// shares with the service is what the comparison needs to be like for like: the project's cached token
// verifier, its zod order schema, its order decider (as the CommandHandler's evolve and decide), the same
// response bytes for an order (domain/orders/order-resource.ts), the same security headers, X-Request-Id and
// request log line. Products and the caller's addresses come from memory, as in the ceiling.
//
// Two choices a user would make and the sample does not show (see bench/NOTES.md, issue 31):
// - emmett-expressjs is at 0.20 on the registry, for Express 4: Express 4 it is (./node_modules).
// - The sample's pool, given a file name, opens and closes a SQLite connection for every operation. Set
//   EMMETT_POOL=per-operation for that; the default is one connection for the process (the pool's
//   `singleton` option), which is what a user measuring it would pick.
//
// Run: node bench/peers/emmett/server.ts CONFIG.json (the config of bench/support/ceilings/ceiling-app.ts,
// with currency and addresses); prints its URL on stdout.
import { createPublicKey } from 'node:crypto';
import { randomUUIDv7 } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CommandHandler, projections, STREAM_DOES_NOT_EXIST } from '@event-driven-io/emmett';
import {
  BadRequest,
  Forbidden,
  getApplication,
  NotFound,
  on,
  send,
  type HttpResponse,
} from '@event-driven-io/emmett-expressjs';
import {
  getSQLiteEventStore,
  sqliteConnection,
  SQLiteConnectionPool,
  sqliteProjection,
} from '@event-driven-io/emmett-sqlite';
import type { NextFunction, Request, Response, Router } from 'express';
import type { Product } from '../../../catalog/catalog.ts';
import { readCatalogFile } from '../../../catalog/catalog-file.ts';
import { placeOrderCommand, resolveOrderRequest } from '../../../command-api/orders/place-order.ts';
import { orderDecider, type OrderState } from '../../../domain/orders/order-decider.ts';
import type { OrderEvent } from '../../../domain/orders/order-events.ts';
import type { Address } from '../../../domain/orders/order.ts';
import type { StoredAddress } from '../../../identity/users.ts';
import { createAccessTokenVerifier, type Principal } from '../../../infrastructure/auth/access-tokens.ts';
import { scopeOf } from '../../../domain/identity/permissions.ts';
import { roles } from '../../../domain/identity/roles.ts';
import { systemClock } from '../../../infrastructure/clock.ts';
import { afterResponse } from '../../../infrastructure/http/after-response.ts';
import { requestId, requestIdOf } from '../../../infrastructure/http/request-id.ts';
import { logRequest } from '../../../infrastructure/http/request-log.ts';
import { notModified } from '../../../infrastructure/http/representation.ts';
import { securityHeaders } from '../../../infrastructure/http/security-headers.ts';
import { createLogger } from '../../../infrastructure/logging/create-logger.ts';
import { detailsOf, evolveDetails, type OrderDetails } from '../../../domain/orders/order-details.ts';
import { orderRepresentation } from '../../support/order-representation.ts';

type Config = {
  token: { kid: string; publicKeyPem: string; issuer: string; audience: string };
  dataDir: string;
  currency: string;
  addresses: (Address & { id: string; customerId: string })[];
};
const config = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Config;

// ---- The read model: one row per order, kept by an inline projection ----------------------------------

const ordersTable = 'orders';
type OrderRow = { customer_id: string; etag: string; last_modified: string; document: string; state: string };

/** The order's row after its events: the state, and the response's bytes, ETag and Last-Modified. */
const orderDetailsProjection = sqliteProjection<OrderEvent>({
  canHandle: [
    'OrderPlaced',
    'OrderConfirmed',
    'OrderShipped',
    'OrderDelivered',
    'OrderCancelled',
    'PaymentReceived',
  ],
  init: async ({ context: { connection } }) => {
    await connection.command(
      `CREATE TABLE IF NOT EXISTS ${ordersTable} (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL,
       etag TEXT NOT NULL, last_modified TEXT NOT NULL, document TEXT NOT NULL, state TEXT NOT NULL)`,
    );
  },
  handle: async (events, { connection }) => {
    for (const event of events) {
      const orderId = event.data.orderId;
      const current =
        event.type === 'OrderPlaced'
          ? null
          : (JSON.parse(
              (await connection.querySingle<OrderRow>(`SELECT state FROM ${ordersTable} WHERE id = ?`, [
                orderId,
              ]))!.state,
            ) as OrderDetails);
      const order = evolveDetails(current, event);
      const representation = orderRepresentation(order);
      await connection.command(
        `INSERT INTO ${ordersTable} (id, customer_id, etag, last_modified, document, state) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
         document = excluded.document, state = excluded.state`,
        [
          orderId,
          order.customerId,
          representation.etag,
          representation.lastModified!,
          representation.body.toString('utf8'),
          JSON.stringify(order),
        ],
      );
    }
  },
});

// ---- The event store, as the sample sets it up -------------------------------------------------------

const fileName = join(config.dataDir, `emmett-${process.pid}.db`);
const pool =
  process.env['EMMETT_POOL'] === 'per-operation'
    ? SQLiteConnectionPool({ fileName })
    : SQLiteConnectionPool({
        fileName,
        connectionOptions: { singleton: true, connection: sqliteConnection({ fileName }) },
      });
const eventStore = getSQLiteEventStore({
  fileName,
  projections: projections.inline([orderDetailsProjection]),
  pool,
});
await eventStore.schema.migrate();

const handle = CommandHandler<OrderState, OrderEvent>({
  evolve: orderDecider.evolve,
  initialState: orderDecider.initialState,
});

// ---- What the route needs from memory: products and addresses ----------------------------------------

const products = new Map<number, Product>(
  readCatalogFile(
    JSON.parse(readFileSync(new URL('../../../catalog/demo-catalog.json', import.meta.url), 'utf8')),
    config.currency,
  ).products.map((product) => [product.id, product]),
);
const addresses = new Map<string, Map<string, StoredAddress>>();
for (const { customerId, id, street, city, postalCode, country } of config.addresses) {
  if (!addresses.has(customerId)) addresses.set(customerId, new Map());
  addresses.get(customerId)!.set(id, { id, street, city, postalCode, country, createdAt: '' });
}
/** The order schema's lookups, answered from memory. */
const lookups = {
  catalog: { getProduct: async (id: number) => products.get(id) ?? null },
  users: {
    findAddress: async (customerId: string, addressId: string) =>
      addresses.get(customerId)?.get(addressId) ?? null,
  },
};

// ---- Authentication: the project's cached verifier -----------------------------------------------------

const publicKey = createPublicKey(config.token.publicKeyPem);
const verifier = createAccessTokenVerifier({
  publicKeyFor: (kid) => (kid === config.token.kid ? publicKey : undefined),
  roles,
  issuer: config.token.issuer,
  audience: config.token.audience,
  clock: systemClock,
});
const bearer = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
type AuthenticatedRequest = Request & { principal: Principal };

const authenticated = (request: Request, response: Response, next: NextFunction) => {
  const token = bearer.exec(request.headers.authorization ?? '')?.[1];
  try {
    if (token === undefined) throw new Error('no bearer token');
    const principal = verifier.verify(token);
    (request as AuthenticatedRequest).principal = principal;
    // Where the request log line looks for the user id.
    response.locals['principal'] = principal;
    next();
  } catch {
    response.status(401).setHeader('Cache-Control', 'no-store').end();
  }
};

// ---- The API -------------------------------------------------------------------------------------------

const ordersApi = (router: Router) => {
  const logger = createLogger({ level: 'info' });
  router.use(securityHeaders(), requestId, afterResponse([logRequest(logger)]));

  router.post(
    '/orders',
    authenticated,
    on(async (request: AuthenticatedRequest): Promise<HttpResponse> => {
      const { principal } = request;
      if (scopeOf(principal.roles, 'placeOrder') === null) return Forbidden({ problemDetails: 'forbidden' });
      const parsed = await resolveOrderRequest(lookups, principal.userId, request.body);
      if (!parsed.ok) return BadRequest({ problemDetails: JSON.stringify(parsed.errors) });
      const orderId = randomUUIDv7();
      const placedAt = new Date().toISOString();
      const command = placeOrderCommand(parsed.request, {
        orderId,
        customerId: principal.userId,
        placedAt,
        currency: config.currency,
      });
      const id = requestIdOf(request.res!);
      const metadata = {
        actor: { userId: principal.userId, roles: principal.roles },
        correlationId: id,
        causationId: id,
        occurredAt: placedAt,
      };
      const { newEvents, lastEventGlobalPosition } = await handle(
        eventStore,
        `order-${orderId}`,
        (state) => orderDecider.decide(command, state).map((event) => ({ ...event, metadata })),
        { expectedStreamVersion: STREAM_DOES_NOT_EXIST },
      );
      const placed = detailsOf(newEvents as OrderEvent[]);
      if (placed === null) throw new Error('the order was not placed');
      const representation = orderRepresentation(placed);
      return (response: Response) => {
        response.setHeader('Cache-Control', 'no-store');
        response.setHeader('Last-Modified', representation.lastModified!);
        response.setHeader('Consistency-Token', String(lastEventGlobalPosition));
        response.setHeader('Content-Type', representation.contentType);
        send(response, 201, {
          location: `/orders/${orderId}`,
          body: representation.body,
          eTag: representation.etag as never,
        });
      };
    }),
  );

  router.get(
    '/orders/:orderId',
    authenticated,
    on(async (request: AuthenticatedRequest): Promise<HttpResponse> => {
      const { principal } = request;
      const scope = scopeOf(principal.roles, 'getOrder');
      if (scope === null) return Forbidden({ problemDetails: 'forbidden' });
      const row = await pool.withConnection((connection) =>
        connection.querySingle<OrderRow>(
          `SELECT customer_id, etag, last_modified, document FROM ${ordersTable} WHERE id = ?`,
          [request.params['orderId']!],
        ),
      );
      if (!row || (scope !== 'any' && row.customer_id !== principal.userId))
        return NotFound({ problemDetails: 'There is no order with this id.' });
      return (response: Response) => {
        response.setHeader('Cache-Control', 'private, no-cache');
        response.setHeader('ETag', row.etag);
        response.setHeader('Last-Modified', row.last_modified);
        if (notModified(request, { etag: row.etag, lastModified: row.last_modified })) {
          response.status(304).end();
          return;
        }
        response.setHeader('Content-Type', 'application/json; charset=utf-8');
        send(response, 200, { body: row.document });
      };
    }),
  );
};

const app = getApplication({ apis: [ordersApi] });
app.disable('x-powered-by');
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => {
    void pool.close().then(() => process.exit(0));
  });
});
