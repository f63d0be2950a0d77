import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { catalogQueryModule } from './catalog/catalog-module.ts';
import type { CatalogStore } from '../catalog/catalog.ts';
import type { Authenticator } from '../infrastructure/auth/authenticator.ts';
import type { Clock } from '../infrastructure/clock.ts';
import type { ProjectionProgress } from '../infrastructure/event-sourcing/projection-progress.ts';
import type { EventStore } from '../infrastructure/event-store/event-store.ts';
import type { ConsistencyTokens } from '../infrastructure/http/consistency-tokens.ts';
import type { HttpModule } from '../infrastructure/http/http-module.ts';
import type { Reveal, RevealOwned } from '../infrastructure/personal-data/revealed.ts';
import type { SecretCipher } from '../infrastructure/crypto/secret-cipher.ts';
import type { OrderReadModel } from '../projections/orders/order-read-model.ts';
import type { DeliveryLog } from '../webhooks/deliveries/delivery-log.ts';
import type { DeliveryQueue } from '../webhooks/deliveries/delivery-queue.ts';
import type { WebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/subscription-read-model.ts';
import type { UserStore } from '../identity/users.ts';
import { auditModule } from './audit/audit-module.ts';
import { identityQueryModule } from './identity/identity-query-module.ts';
import { consoleModule } from './console/console-module.ts';
import { ordersQueryModule } from './orders/orders-query-module.ts';
import { subscriptionsQueryModule } from './webhook-subscriptions/subscriptions-query-module.ts';

/**
 * Every feature's query half, as a process that answers reads mounts them (the query API, the embedded
 * process), over whichever read models it chose. Each read model comes with its projection's progress, for
 * Consistency-Token.
 */
export const queryModules = (deps: {
  eventStore: EventStore;
  /** The keys and the sign-in of this process (assembly/security.ts). */
  security: {
    auth: { authenticator: Authenticator };
    /** Opens sealed personal data on the way out ("[erased]" once erased). */
    keyring: {
      reveal: Reveal;
      keyStamp: (ownerId: string) => object | undefined;
      revealOwned: RevealOwned;
    };
    /** Reads the Consistency-Tokens the command side issued to each caller. */
    consistencyTokens: ConsistencyTokens;
    /** Opens sealed webhook URLs, for admins (WEBHOOK_SECRET_KEY). */
    webhookCipher: Pick<SecretCipher, 'open'>;
  };
  orders: { readModel: OrderReadModel; progress: ProjectionProgress };
  subscriptions: {
    readModel: WebhookSubscriptionReadModel;
    deliveryLog: DeliveryLog;
    deliveryQueue: Pick<DeliveryQueue, 'pendingOf'>;
    progress: ProjectionProgress;
  };
  catalog: CatalogStore;
  users: UserStore;
  config: {
    consistencyTimeoutMs: number;
    catalog: { currency: string; refreshIntervalMs: number; purgeUrls: readonly string[] };
    console?: {
      /** Where the console's commands go when another process takes writes. */
      commandApiUrl?: string | undefined;
      /** The other processes whose metrics GET /metrics?process={name} serves, for the health view. */
      processes: Record<string, unknown>;
    };
  };
  clock: Clock;
  logger: Logger;
  metrics: Registry;
}): HttpModule[] => {
  const { eventStore, config, security } = deps;
  const { authenticator } = security.auth;
  const { reveal } = security.keyring;
  const { consistencyTokens, webhookCipher } = security;
  return [
    ordersQueryModule({
      readModel: deps.orders.readModel,
      eventStore,
      progress: deps.orders.progress,
      authenticator,
      consistencyTimeoutMs: config.consistencyTimeoutMs,
      reveal,
      keyStamp: security.keyring.keyStamp,
      revealOwned: security.keyring.revealOwned,
      consistencyTokens,
      users: deps.users,
      currency: config.catalog.currency,
    }),
    // Whichever process serves the catalogue sends the caches' purges; each is claimed, so sent once in all.
    catalogQueryModule({
      store: deps.catalog,
      config: config.catalog,
      clock: deps.clock,
      logger: deps.logger,
      metrics: deps.metrics,
    }),
    auditModule({ eventStore, authenticator, reveal, webhookCipher }),
    subscriptionsQueryModule({
      subscriptions: deps.subscriptions.readModel,
      deliveryLog: deps.subscriptions.deliveryLog,
      deliveryQueue: deps.subscriptions.deliveryQueue,
      progress: deps.subscriptions.progress,
      headPosition: () => eventStore.headPosition(),
      authenticator,
      consistencyTimeoutMs: config.consistencyTimeoutMs,
      consistencyTokens,
      webhookCipher,
      reveal,
    }),
    identityQueryModule({ users: deps.users, authenticator, reveal }),
    consoleModule({
      commandApiUrl: config.console?.commandApiUrl,
      processes: Object.keys(config.console?.processes ?? {}),
    }),
  ];
};
