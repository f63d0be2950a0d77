import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { catalogQueryModule } from './catalog/catalog-module.ts';
import type { CatalogStore } from '../projections/catalog/catalog.ts';
import type { Authenticator } from '../infrastructure/auth/authenticator.ts';
import type { Clock } from '../infrastructure/clock.ts';
import type { ProjectionProgress } from '../infrastructure/event-sourcing/projection-progress.ts';
import type { EventStore } from '../infrastructure/event-store/event-store.ts';
import type { ConsistencyTokens } from '../infrastructure/http/consistency-tokens.ts';
import type { HttpModule } from '../infrastructure/http/http-module.ts';
import type { Reveal } from '../infrastructure/personal-data/revealed.ts';
import type { SecretCipher } from '../infrastructure/crypto/secret-cipher.ts';
import type { OrderReadModel } from '../projections/orders/order-read-model.ts';
import type { DeliveryLog } from '../projections/webhook-deliveries/delivery-log.ts';
import type { WebhookSubscriptionReadModel } from '../projections/webhook-subscriptions/subscription-read-model.ts';
import type { UserStore } from '../projections/identity/users.ts';
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
  authenticator: Authenticator;
  orders: { readModel: OrderReadModel; progress: ProjectionProgress };
  subscriptions: {
    readModel: WebhookSubscriptionReadModel;
    deliveryLog: DeliveryLog;
    progress: ProjectionProgress;
  };
  catalog: CatalogStore;
  users: UserStore;
  config: {
    consistencyTimeoutMs: number;
    catalog: { currency: string; refreshIntervalMs: number; purgeUrls: readonly string[] };
    /** Where the console's commands go when another process takes writes. */
    commandApiUrl?: string | undefined;
    /** The other processes whose metrics GET /metrics?process={name} serves, for the console's health view. */
    consoleProcesses?: readonly string[];
  };
  clock: Clock;
  logger: Logger;
  metrics: Registry;
  /** Opens sealed personal data on the way out ("[erased]" once erased). */
  reveal: Reveal;
  /** Reads the Consistency-Tokens the command side issued to each caller. */
  consistencyTokens: ConsistencyTokens;
  /** Opens sealed webhook URLs, for admins (WEBHOOK_SECRET_KEY). */
  webhookCipher: Pick<SecretCipher, 'open'>;
}): HttpModule[] => {
  const { eventStore, authenticator, config } = deps;
  return [
    ordersQueryModule({
      readModel: deps.orders.readModel,
      eventStore,
      progress: deps.orders.progress,
      authenticator,
      consistencyTimeoutMs: config.consistencyTimeoutMs,
      reveal: deps.reveal,
      consistencyTokens: deps.consistencyTokens,
      users: deps.users,
    }),
    // Whichever process serves the catalogue sends the caches' purges; each is claimed, so sent once in all.
    catalogQueryModule({
      store: deps.catalog,
      config: config.catalog,
      clock: deps.clock,
      logger: deps.logger,
      metrics: deps.metrics,
    }),
    auditModule({ eventStore, authenticator, reveal: deps.reveal, webhookCipher: deps.webhookCipher }),
    subscriptionsQueryModule({
      subscriptions: deps.subscriptions.readModel,
      deliveryLog: deps.subscriptions.deliveryLog,
      progress: deps.subscriptions.progress,
      headPosition: () => eventStore.headPosition(),
      authenticator,
      consistencyTimeoutMs: config.consistencyTimeoutMs,
      consistencyTokens: deps.consistencyTokens,
      webhookCipher: deps.webhookCipher,
    }),
    identityQueryModule({ users: deps.users, authenticator, reveal: deps.reveal }),
    consoleModule({ commandApiUrl: config.commandApiUrl, processes: config.consoleProcesses ?? [] }),
  ];
};
