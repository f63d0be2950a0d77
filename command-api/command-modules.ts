import { randomUUID, randomUUIDv7 } from 'node:crypto';
import type { Logger } from 'pino';
import type { CatalogStore } from '../catalog/catalog.ts';
import type { Authenticator } from '../infrastructure/auth/authenticator.ts';
import type { WriteLimiter } from '../infrastructure/auth/write-limits.ts';
import type { UserStore } from '../identity/users.ts';
import type { Clock } from '../infrastructure/clock.ts';
import type { SecretCipher } from '../infrastructure/crypto/secret-cipher.ts';
import type { EventStore } from '../infrastructure/event-store/event-store.ts';
import type { ConsistencyTokens } from '../infrastructure/http/consistency-tokens.ts';
import type { HttpModule } from '../infrastructure/http/http-module.ts';
import type { PersonalDataKeyring } from '../infrastructure/personal-data/keyring.ts';
import type { DeliveryQueue } from '../webhooks/deliveries/delivery-queue.ts';
import type { RefreshTokenStore } from '../infrastructure/auth/refresh-tokens.ts';
import type { IdempotencyStore } from './idempotency/idempotency-store.ts';
import { identityCommandModule } from './identity/identity-command-module.ts';
import { ordersCommandModule } from './orders/orders-command-module.ts';
import { subscriptionsCommandModule } from './webhook-subscriptions/subscriptions-command-module.ts';

/**
 * Every feature's command half, as a process that takes writes mounts them (the command API, the embedded
 * process), over whichever adapters it chose. New orders, payments and their events get UUIDv7s: ordered by
 * time, each new order's entries go at the end of the id indexes instead of on a random page.
 */
export const commandModules = ({
  eventStore,
  authenticator,
  writeLimits,
  stores,
  webhooks,
  config,
  personalData,
  flushDeleted,
  consistencyTokens,
  clock,
  logger,
}: {
  eventStore: EventStore;
  authenticator: Authenticator;
  /** The per-user limits on writes: orders placed, addresses stored. */
  writeLimits: WriteLimiter;
  stores: {
    catalog: CatalogStore;
    users: UserStore;
    refreshTokens: RefreshTokenStore;
    idempotency: IdempotencyStore;
    /** The webhook retry state: an admin's retry of a delivery reads it. */
    deliveries: Pick<DeliveryQueue, 'get'>;
  };
  webhooks: {
    /** Seals webhook secrets in their subscription's events. */
    cipher: SecretCipher;
    /** Refuses a URL webhooks may not target. */
    checkUrl: (url: string) => Promise<URL>;
  };
  /**
   * The catalogue currency is what order prices are in; the catalogue snapshot that prices them checks the
   * revision every `refreshIntervalMs` (0: before every order).
   */
  config: { catalog: { currency: string; refreshIntervalMs: number } };
  /** Seals the personal data of new events and stored addresses, opens it in answers. */
  personalData: PersonalDataKeyring;
  /** Drops what the store keeps of deleted rows beside its tables (SQLite's WAL), after an erasure. */
  flushDeleted?: () => Promise<void>;
  /** Binds each answer's Consistency-Token to the caller it answers. */
  consistencyTokens: ConsistencyTokens;
  clock: Clock;
  logger: Logger;
}): HttpModule[] => [
  ordersCommandModule({
    eventStore,
    authenticator,
    writeLimits,
    catalog: stores.catalog,
    catalogRefreshIntervalMs: config.catalog.refreshIntervalMs,
    users: stores.users,
    idempotency: stores.idempotency,
    currency: config.catalog.currency,
    clock,
    newId: randomUUIDv7,
    personalData,
    consistencyTokens,
    logger,
  }),
  subscriptionsCommandModule({
    eventStore,
    authenticator,
    cipher: webhooks.cipher,
    checkUrl: webhooks.checkUrl,
    deliveries: stores.deliveries,
    clock,
    newId: randomUUID,
    consistencyTokens,
  }),
  identityCommandModule({
    users: stores.users,
    refreshTokens: stores.refreshTokens,
    authenticator,
    writeLimits,
    eventStore,
    keyring: personalData,
    flushDeleted,
    clock,
  }),
];
