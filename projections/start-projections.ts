import type { Logger } from 'pino';
import { createKafkaEventBus } from '../infrastructure/bus/kafka-event-bus.ts';
import { openEventLog } from '../infrastructure/event-store/open-event-log.ts';
import { startOperationsServer } from '../infrastructure/http/operations-server.ts';
import { connectMongo } from '../infrastructure/mongo/connect-mongo.ts';
import type { ProjectionsConfig } from './config.ts';
import { startEventRelay } from './event-relay.ts';
import { createMongoCheckpointStore } from './mongo-checkpoint-store.ts';
import { createMongoOrderReadModel } from './mongo-order-read-model.ts';
import { createMongoWebhookSubscriptionReadModel } from './mongo-webhook-subscription-read-model.ts';
import { orderProjectionName, subscriptionProjectionName } from './projection-names.ts';
import { startProjectionRunner } from './projection-runner.ts';

export type ProjectionsDeps = { config: ProjectionsConfig; logger: Logger };

/**
 * The projections process of the distributed mode: the order and subscription read models in MongoDB, and
 * the relay of public events to Kafka, each following the log from its own checkpoint. Run one of it: the
 * read models are idempotent, so a second one would do the work twice but harm nothing.
 */
export const startProjections = async ({ config, logger }: ProjectionsDeps) => {
  const mongo = await connectMongo(config.mongo);
  const eventStore = openEventLog(config.eventLog);
  const { db } = mongo;
  const checkpoints = createMongoCheckpointStore(db);
  const orders = await createMongoOrderReadModel(db);
  const subscriptions = await createMongoWebhookSubscriptionReadModel(db);
  const bus = createKafkaEventBus({
    brokers: config.kafka.brokers,
    clientId: config.kafka.clientId,
    partitions: config.kafka.partitions,
    logger,
  });
  const common = { eventStore, checkpoints, logger, minBatchIntervalMs: config.batchIntervalMs };
  const runners = [
    await startProjectionRunner({
      ...common,
      name: orderProjectionName,
      apply: (events) => orders.applyEvents(events),
    }),
    await startProjectionRunner({
      ...common,
      name: subscriptionProjectionName,
      apply: (events) => subscriptions.applyEvents(events),
    }),
    await startEventRelay({ ...common, bus, topics: config.kafka.topics }),
  ];

  const http = await startOperationsServer({ port: config.port, host: config.host, logger });
  logger.info({ url: http.url }, 'projections running');
  return {
    url: http.url,
    async stop() {
      await http.close();
      for (const runner of runners) await runner.stop();
      await bus.close();
      await eventStore.close();
      await mongo.close();
      logger.info('projections stopped');
    },
  };
};
