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
  security,
  stores,
  checkUrl,
  config,
  flushDeleted,
  clock,
  logger,
}: {
  eventStore: EventStore;
  /** The keys and the sign-in of this process (assembly/security.ts). */
  security: {
    auth: { authenticator: Authenticator; writeLimits: WriteLimiter };
    /** Seals the personal data of new events and stored addresses, opens it in answers. */
    keyring: PersonalDataKeyring;
    /** Binds each answer's Consistency-Token to the caller it answers. */
    consistencyTokens: ConsistencyTokens;
    /** Seals webhook secrets in their subscription's events. */
    webhookCipher: SecretCipher;
  };
  stores: {
    catalog: CatalogStore;
    users: UserStore;
    refreshTokens: RefreshTokenStore;
    idempotency: IdempotencyStore;
    /** The webhook retry state: an admin's retry of a delivery reads it. */
    deliveries: Pick<DeliveryQueue, 'get' | 'deadSince'>;
  };
  /** Refuses a URL webhooks may not target. */
  checkUrl: (url: string) => Promise<URL>;
  /**
   * The catalogue currency is what order prices are in; the catalogue snapshot that prices them checks the
   * revision every `refreshIntervalMs` (0: before every order).
   */
  config: { catalog: { currency: string; refreshIntervalMs: number } };
  /** Drops what the store keeps of deleted rows beside its tables (SQLite's WAL), after an erasure. */
  flushDeleted?: () => Promise<void>;
  clock: Clock;
  logger: Logger;
}): HttpModule[] => [
  ordersCommandModule({
    eventStore,
    authenticator: security.auth.authenticator,
    writeLimits: security.auth.writeLimits,
    catalog: stores.catalog,
    catalogRefreshIntervalMs: config.catalog.refreshIntervalMs,
    users: stores.users,
    idempotency: stores.idempotency,
    currency: config.catalog.currency,
    clock,
    newId: randomUUIDv7,
    personalData: security.keyring,
    consistencyTokens: security.consistencyTokens,
    logger,
  }),
  subscriptionsCommandModule({
    eventStore,
    authenticator: security.auth.authenticator,
    cipher: security.webhookCipher,
    checkUrl,
    deliveries: stores.deliveries,
    clock,
    newId: randomUUID,
    consistencyTokens: security.consistencyTokens,
  }),
  identityCommandModule({
    users: stores.users,
    refreshTokens: stores.refreshTokens,
    authenticator: security.auth.authenticator,
    writeLimits: security.auth.writeLimits,
    eventStore,
    keyring: security.keyring,
    flushDeleted,
    clock,
  }),
];
