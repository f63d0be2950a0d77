import { z } from 'zod';
import {
  personalDataConfig,
  personalDataEnvironment,
  requirePersonalDataKey,
} from '../infrastructure/config/personal-data-environment.ts';
import {
  checkEventLog,
  distributedStoresConfig,
  distributedStoresEnvironment,
  kafkaConfig,
  kafkaEnvironment,
  processConfig,
  processEnvironment,
  requireExactlyOne,
} from '../infrastructure/config/service-environment.ts';
import { webhookConfig, webhookEnvironment } from '../infrastructure/config/webhook-environment.ts';

/**
 * The webhook dispatcher of the distributed mode (`npm run start:webhook-dispatcher`). Run as many as the
 * load needs: they share the topic's partitions in one consumer group and the retry state in MongoDB.
 * Its HTTP port serves GET /health, /ready and /metrics.
 */
export const dispatcherConfigSchema = z
  .object({
    ...processEnvironment(3004),
    ...distributedStoresEnvironment,
    ...personalDataEnvironment,
    ...kafkaEnvironment,
    ...webhookEnvironment,
    KAFKA_CONSUMER_GROUP: z
      .string()
      .min(1)
      .default('webhook-dispatcher')
      .describe('The consumer group the dispatchers share the events in.'),
    KAFKA_SESSION_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(6000)
      .max(300_000)
      .default(30_000)
      .describe('How long a group member may be silent before its partitions go to the other dispatchers.'),
    WEBHOOK_LEASE_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .max(3_600_000)
      .default(60_000)
      .describe(
        "How long a claimed delivery is one dispatcher's before another takes it over; more than " +
          'WEBHOOK_TIMEOUT_MS + 1000, so that a slow attempt is never sent twice at once.',
      ),
  })
  .superRefine((env, context) => {
    if (env.WEBHOOK_LEASE_MS <= env.WEBHOOK_TIMEOUT_MS + 1000) {
      context.addIssue({
        code: 'custom',
        path: ['WEBHOOK_LEASE_MS'],
        message: 'must exceed WEBHOOK_TIMEOUT_MS by more than 1000',
      });
    }
  })
  .superRefine(checkEventLog)
  .superRefine(requirePersonalDataKey)
  .superRefine(
    requireExactlyOne(['WEBHOOK_SECRET_KEY_FILE', 'WEBHOOK_SECRET_KEY'], 'the key sealing webhook secrets'),
  )
  .transform((env) => ({
    ...processConfig(env),
    ...distributedStoresConfig(env),
    kafka: {
      ...kafkaConfig(env, 'order-service-webhook-dispatcher'),
      group: env.KAFKA_CONSUMER_GROUP,
      sessionTimeoutMs: env.KAFKA_SESSION_TIMEOUT_MS,
    },
    webhooks: webhookConfig(env),
    personalData: personalDataConfig(env),
    leaseMs: env.WEBHOOK_LEASE_MS,
  }))
  .describe(
    'The webhook dispatcher of the distributed mode (npm run start:webhook-dispatcher): consumes the public ' +
      'events from Kafka in a consumer group and delivers them to the subscribers. Run as many as needed.',
  );

export type DispatcherConfig = z.infer<typeof dispatcherConfigSchema>;
