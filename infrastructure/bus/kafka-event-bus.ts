import { Kafka, logLevel, Partitioners, type EachBatchPayload, type LogEntry } from 'kafkajs';
import type { Logger } from 'pino';
import {
  createOrderedQueue,
  handleOneAtATime,
  type BusMessage,
  type ConsumeOptions,
  type EventBus,
  type RunningConsumer,
} from './event-bus.ts';

export type KafkaEventBusOptions = {
  brokers: readonly string[];
  clientId: string;
  logger: Logger;
  /** Partitions of each topic the bus creates when it is missing. Default 6. */
  partitions?: number;
  /** How long a partition waits before a batch whose handle threw is fetched and handled again. Default 1000. */
  retryDelayMs?: number;
  /** Consumer group session timeout; consumers heartbeat every tenth of it. Default 30000. */
  sessionTimeoutMs?: number;
  /** The longest a fetch waits for new messages, which also bounds how long stop() waits. Default 1000. */
  maxWaitTimeMs?: number;
  /** How long creating a missing topic may take, another process creating it too. Default 60000. */
  topicReadyTimeoutMs?: number;
};

const pinoLevel = ({ level, namespace, log }: LogEntry) => {
  // A connection logs every error response as an error, "the group is rebalancing" included; the client
  // that sent the request retries or reports the failure itself, so these are only worth a debug line.
  if (namespace === 'Connection' && log.message.startsWith('Response ')) return 'debug';
  if (level === logLevel.ERROR) return 'error';
  return level === logLevel.WARN ? 'warn' : level === logLevel.INFO ? 'info' : 'debug';
};

/** kafkajs logs through pino, warn and above. */
const logCreator = (logger: Logger) => () => (entry: LogEntry) => {
  const { message, timestamp: _timestamp, logger: _logger, ...fields } = entry.log;
  logger[pinoLevel(entry)]({ namespace: entry.namespace, ...fields }, message);
};

/** Connects on first use; a failed attempt is forgotten so that the next call tries again. */
const once = (connect: () => Promise<void>) => {
  let connecting: Promise<void> | undefined;
  return () =>
    (connecting ??= connect().catch((error: unknown) => {
      connecting = undefined;
      throw error;
    }));
};

/**
 * The bus of the distributed mode. Messages are keyed, so that one key stays in one partition and in
 * order; an idempotent producer (acks all) resolves publish once every in-sync replica has the messages.
 * Topics are created on first use. Each consume is a consumer in a consumer group: a new group starts at
 * the earliest offset, and a partition's offset is committed only after handle resolved. When handle
 * throws, the consumer seeks back to the batch's first offset and pauses that partition for retryDelayMs,
 * so the same messages come again, before anything later of that partition, while the others go on.
 * With a dead-letter option, the maxAttempts-th failure in a row hands the batch's messages one at a time
 * and dead-letters those that fail, so that a poison message does not block its partition.
 */
/** The Kafka bus, plus what GET /ready asks of it. */
export type KafkaEventBus = EventBus & {
  /** Resolves once a broker answered a metadata request (the cluster is reachable). */
  ping(): Promise<void>;
};

export const createKafkaEventBus = ({
  brokers,
  clientId,
  logger,
  partitions = 6,
  retryDelayMs = 1000,
  sessionTimeoutMs = 30_000,
  maxWaitTimeMs = 1000,
  topicReadyTimeoutMs = 60_000,
}: KafkaEventBusOptions): KafkaEventBus => {
  const kafka = new Kafka({
    clientId,
    brokers: [...brokers],
    logLevel: logLevel.WARN,
    logCreator: logCreator(logger.child({ component: 'kafkajs' })),
    // kafkajs backs off up to 30 s between tries, and a consumer that ran out of them restarts after its
    // last back-off: a broker back after an outage went unseen for that long (the fault suite on the stand
    // saw consumers restart 9 to 13 s after Kafka was back). Tries at most 2 s apart find it within 2 s. The
    // number of tries stays kafkajs's own (an idempotent producer must not have fewer).
    retry: { initialRetryTime: 300, maxRetryTime: 2000 },
  });
  const admin = kafka.admin();
  const producer = kafka.producer({
    idempotent: true,
    // One request in flight per broker keeps the idempotent producer's sequence numbers simple.
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    // Naming the (murmur2, Java-compatible) default silences kafkajs's partitioner-change warning.
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  const connectAdmin = once(() => admin.connect());
  const connectProducer = once(() => producer.connect());
  const inPublishOrder = createOrderedQueue('the Kafka producer');
  const consumers = new Set<RunningConsumer>();
  let closed = false;

  const topicsReady = new Map<string, Promise<void>>();
  const createTopicOnce = async (topic: string) => {
    await connectAdmin();
    if ((await admin.listTopics()).includes(topic)) return;
    // false when someone else created it meanwhile: fine.
    if (await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true })) {
      logger.info({ topic, partitions }, 'created Kafka topic');
    }
  };
  /**
   * Another process may be creating the same topic, and a busy broker may take longer to elect its
   * leaders than the client waits: retriable errors are tried again for up to topicReadyTimeoutMs.
   */
  const createTopic = async (topic: string) => {
    const deadline = performance.now() + topicReadyTimeoutMs;
    for (;;) {
      try {
        return await createTopicOnce(topic);
      } catch (error) {
        // kafkajs marks its errors `retriable` (its error classes are not ES-module exports).
        const retriable = (error as { retriable?: unknown } | null)?.retriable === true;
        if (!retriable || closed || performance.now() > deadline) throw error;
        logger.debug({ err: error, topic }, 'the topic is not ready yet; trying again');
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  };
  const ensureTopics = (topics: readonly string[]) =>
    Promise.all(
      topics.map((topic) => {
        let ready = topicsReady.get(topic);
        if (!ready) {
          ready = createTopic(topic).catch((error: unknown) => {
            topicsReady.delete(topic);
            throw error;
          });
          topicsReady.set(topic, ready);
        }
        return ready;
      }),
    );

  const publish = (topic: string, messages: readonly BusMessage[]): Promise<void> => {
    if (closed) return Promise.reject(new Error('the event bus is closed'));
    if (messages.length === 0) return Promise.resolve();
    const records = messages.map(({ key, value }) => ({ key, value }));
    return inPublishOrder(async () => {
      await ensureTopics([topic]);
      await connectProducer();
      await producer.send({ topic, acks: -1, messages: records });
    });
  };

  const consume = async ({ group, topics, handle, deadLetter }: ConsumeOptions): Promise<RunningConsumer> => {
    if (closed) throw new Error('the event bus is closed');
    await ensureTopics(topics);
    const log = logger.child({ group });
    const consumer = kafka.consumer({
      groupId: group,
      sessionTimeout: sessionTimeoutMs,
      heartbeatInterval: Math.floor(sessionTimeoutMs / 10),
      maxWaitTimeInMs: maxWaitTimeMs,
      allowAutoTopicCreation: false,
    });
    const retryTimers = new Set<NodeJS.Timeout>();
    /**
     * Offset commits leave the fetch loop: a handled batch's offset is committed behind the next fetch
     * rather than before it. kafkajs fetches again only once every batch of the last fetch was handled, so a
     * commit awaited there held back the next fetch, and every message that arrived meanwhile, by a round
     * trip to the group coordinator (p99 28 ms at 50 orders/s). One commit at a time, of every partition's
     * latest handled offset. The offset still moves only past handled messages; a commit that fails or is
     * lost (a crash, a rebalance) hands those messages to the group again, which at least once allows, and
     * the next commit covers it otherwise.
     */
    const toCommit = new Map<string, { topic: string; partition: number; offset: string }>();
    let committing: Promise<void> | null = null;
    let stopRequested = false;
    const commitHandled = (commit: EachBatchPayload['commitOffsetsIfNecessary']): Promise<void> => {
      if (committing || toCommit.size === 0) return committing ?? Promise.resolve();
      committing = (async () => {
        while (toCommit.size > 0) {
          const offsets = [...toCommit.values()];
          toCommit.clear();
          const byTopic = Map.groupBy(offsets, (entry) => entry.topic);
          try {
            await commit({
              topics: [...byTopic].map(([name, entries]) => ({
                topic: name,
                partitions: entries.map(({ partition, offset }) => ({ partition, offset })),
              })),
            });
          } catch (error) {
            log.warn({ err: error, offsets }, 'committing offsets failed; those messages may come again');
          }
        }
        committing = null;
      })();
      return committing;
    };
    /** Per partition: how many times in a row handling the batch that starts at `offset` failed. */
    const failures = new Map<string, { offset: string; attempts: number }>();
    const publishDeadLetter = (topic: string, messages: readonly BusMessage[]) => {
      log.warn({ deadLetterTopic: topic, keys: messages.map((m) => m.key) }, 'dead-lettering a message');
      return publish(topic, messages);
    };

    const eachBatch = async ({
      batch,
      resolveOffset,
      commitOffsetsIfNecessary,
      pause,
      isRunning,
      isStale,
    }: EachBatchPayload) => {
      // Fetched before a stop or a seek: leave it for whoever handles that partition next.
      if (!isRunning() || isStale()) return;
      const { topic, partition } = batch;
      const messages = batch.messages.map((message) => ({
        topic,
        key: message.key?.toString() ?? '',
        value: message.value?.toString() ?? '',
        source: { partition, offset: message.offset },
      }));
      const offset = batch.firstOffset() ?? batch.messages[0]!.offset;
      const where = `${topic}/${partition}`;
      const handleLater = (attempts: number) => {
        failures.set(where, { offset, attempts });
        consumer.seek({ topic, partition, offset });
        const resume = pause();
        const timer = setTimeout(() => {
          retryTimers.delete(timer);
          resume();
        }, retryDelayMs);
        retryTimers.add(timer);
      };
      try {
        await handle(messages);
      } catch (error) {
        const previous = failures.get(where);
        const attempts = previous?.offset === offset ? previous.attempts + 1 : 1;
        const context = { err: error, topic, partition, offset, attempts };
        if (!deadLetter || attempts < deadLetter.maxAttempts) {
          log.warn({ ...context, retryDelayMs }, 'handling a batch failed; it comes again');
          return handleLater(attempts);
        }
        log.warn(context, 'handling a batch failed again; handling its messages one at a time');
        try {
          await handleOneAtATime(group, messages, handle, publishDeadLetter, deadLetter.topic);
        } catch (deadLetterError) {
          log.error({ ...context, err: deadLetterError }, 'dead-lettering failed; the batch comes again');
          return handleLater(attempts);
        }
      }
      failures.delete(where);
      resolveOffset(batch.lastOffset());
      // lastOffset covers records the batch filtered out (control records), so the group moves past them too.
      const next = (BigInt(batch.lastOffset()) + 1n).toString();
      toCommit.set(where, { topic, partition, offset: next });
      const committed = commitHandled(commitOffsetsIfNecessary);
      // Stopping: committed before the consumer leaves the group, so that a restart does not hand it again.
      if (stopRequested || !isRunning()) await committed;
    };

    let stopping: Promise<void> | undefined;
    const running: RunningConsumer = {
      stop: () =>
        (stopping ??= (async () => {
          consumers.delete(running);
          for (const timer of retryTimers) clearTimeout(timer);
          // The commits under way first; a batch handled from here on commits before it returns.
          stopRequested = true;
          while (committing) await committing;
          // Waits for the batch in hand (handled and committed) and leaves the group.
          await consumer.disconnect();
        })()),
    };
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [...topics], fromBeginning: true });
      // Every partition's batch at once (each partition's own batches still one after another, so a key's
      // messages keep their order): one at a time, a batch waited for the handling of every partition
      // before it in the fetch, and the latency added up with the partitions.
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: partitions * topics.length,
        eachBatch,
      });
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    consumers.add(running);
    if (closed) {
      await running.stop();
      throw new Error('the event bus is closed');
    }
    return running;
  };

  return {
    publish,

    consume,

    async ping() {
      if (closed) throw new Error('the event bus is closed');
      await connectAdmin();
      await admin.describeCluster();
    },

    async close() {
      closed = true;
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
      await Promise.all([producer.disconnect(), admin.disconnect()]);
    },
  };
};
