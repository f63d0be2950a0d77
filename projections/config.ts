import { z } from 'zod';
import {
  checkEventLog,
  distributedStoresConfig,
  distributedStoresEnvironment,
  kafkaConfig,
  kafkaEnvironment,
  processConfig,
  processEnvironment,
  projectionBatchEnvironment,
  projectionLagEnvironment,
} from '../infrastructure/config/service-environment.ts';

/**
 * The projections process of the distributed mode (`npm run start:projections`): follows the log into the
 * MongoDB read models and relays the public events to Kafka. Its HTTP port serves /health, /ready, /metrics.
 */
export const projectionsConfigSchema = z
  .object({
    ...processEnvironment(3003),
    ...distributedStoresEnvironment,
    ...kafkaEnvironment,
    ...projectionLagEnvironment,
    ...projectionBatchEnvironment(2),
  })
  .superRefine(checkEventLog)
  .transform((env) => ({
    ...processConfig(env),
    readiness: { checkTimeoutMs: env.READY_CHECK_TIMEOUT_MS, maxProjectionLag: env.READY_MAX_PROJECTION_LAG },
    ...distributedStoresConfig(env),
    kafka: kafkaConfig(env, 'order-service-projections'),
    batchIntervalMs: env.PROJECTION_BATCH_INTERVAL_MS,
  }))
  .describe(
    'The projections process of the distributed mode (npm run start:projections): follows the event log ' +
      'into the MongoDB read models and relays the public events to Kafka.',
  );

export type ProjectionsConfig = z.infer<typeof projectionsConfigSchema>;
