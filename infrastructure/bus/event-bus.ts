/**
 * The message bus port: public events go out on topics, consumer groups read them at least once.
 * The event log is the outbox, so a publisher republishes whatever a rejected publish carried, and
 * consumers deduplicate by event id.
 */

/**
 * value is JSON text; key decides ordering: one key's messages stay in publish order. `value` may be a
 * getter on the message's prototype (made when first read): read the fields by name, never spread a message.
 */
export type BusMessage = {
  key: string;
  value: string;
  /**
   * What `value` is the JSON text of, where the publisher has it: a bus in the same process hands it on, so
   * that its consumers need not parse the value again (read only: they share it). A bus between processes
   * sends the value alone.
   */
  parsed?: unknown;
};

/**
 * A message of `parsed` as JSON, its text made when first read: a bus in the same process hands on the
 * object, and the text is made only if a consumer reads it (to dead-letter the message) or a bus between
 * processes sends it. A class for its one getter on the prototype: a relay catching up makes a message per
 * event, and an object literal with a getter costs a closure each.
 */
class JsonMessage implements BusMessage {
  readonly key: string;
  readonly parsed: unknown;
  #text: string | undefined;
  constructor(key: string, parsed: unknown) {
    this.key = key;
    this.parsed = parsed;
  }
  get value(): string {
    return (this.#text ??= JSON.stringify(this.parsed));
  }
  toJSON() {
    return { key: this.key, value: this.value };
  }
}

export const jsonMessage = (key: string, parsed: unknown): BusMessage => new JsonMessage(key, parsed);

/**
 * `source`, where the bus has partitions: the message's partition and offset. A consumer that sees a
 * partition's offsets jump (or a partition for the first time) knows another member handled it meanwhile.
 */
export type ConsumedMessage = BusMessage & { topic: string; source?: { partition: number; offset: string } };

export type ConsumeOptions = {
  group: string;
  topics: readonly string[];
  /** Handles a batch; the group moves past it only once this resolves. */
  handle: (batch: readonly ConsumedMessage[]) => Promise<void>;
  /**
   * Keeps poison messages from blocking the group: after maxAttempts failed handlings of a batch, its
   * messages are handled one at a time and those that still fail are published to `topic` as DeadLetters.
   * Without it, a batch is handled again until handle resolves.
   */
  deadLetter?: { topic: string; maxAttempts: number };
};

/** The value (JSON) of a message on a dead-letter topic; its key is the original key. */
export type DeadLetter = { reason: string; group: string; topic: string; key: string; value: string };

export type RunningConsumer = {
  /** Lets a batch in progress finish; nothing is handled after this resolves. */
  stop(): Promise<void>;
};

export type EventBus = {
  /**
   * Resolves once the messages are durably on the bus; one key's messages stay in publish order, also
   * across concurrent publishes (call order). After a rejection, publish those messages again before
   * anything later of the same keys: publishes queued behind a failed one are rejected too.
   */
  publish(topic: string, messages: readonly BusMessage[]): Promise<void>;

  /**
   * Joins consumer group `group` and resolves once the consumer is running. The contract:
   * - handle receives batches; within a key, messages arrive in publish order;
   * - every group receives every message published to its topics after it joined;
   * - a group's position advances only after handle resolves: when it throws, those messages come again
   *   (at least once) and nothing later of the same key is handled before them;
   * - consumers of one group share its messages; a stopped consumer handles nothing more.
   */
  consume(options: ConsumeOptions): Promise<RunningConsumer>;

  /** Stops every consumer and releases connections. */
  close(): Promise<void>;
};

/**
 * Runs tasks one after another in call order. When one fails, the tasks queued behind it fail too without
 * running, until the queue drains: they were issued alongside the failed one, and running them would put
 * later messages of a key ahead of the failed ones, which the publisher is about to send again.
 */
export const createOrderedQueue = (describe: string) => {
  let tail: Promise<void> = Promise.resolve();
  let queued = 0;
  let failure: { error: unknown } | undefined;
  return (task: () => Promise<void>): Promise<void> => {
    queued++;
    const run = tail
      .then(async () => {
        if (failure) throw new Error(`an earlier task of ${describe} failed`, { cause: failure.error });
        try {
          await task();
        } catch (error) {
          failure = { error };
          throw error;
        }
      })
      .finally(() => {
        queued--;
        if (queued === 0) failure = undefined;
      });
    tail = run.catch(() => undefined);
    return run;
  };
};

/**
 * The last resort for a batch that failed maxAttempts times: its messages one at a time, in order, each
 * that fails going to the dead-letter topic (through `publish`) instead of holding up the others.
 */
export const handleOneAtATime = async (
  group: string,
  batch: readonly ConsumedMessage[],
  handle: ConsumeOptions['handle'],
  publish: (topic: string, messages: readonly BusMessage[]) => Promise<void>,
  deadLetterTopic: string,
): Promise<void> => {
  for (const message of batch) {
    try {
      await handle([message]);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const { topic, key, value } = message;
      const deadLetter: DeadLetter = { reason, group, topic, key, value };
      await publish(deadLetterTopic, [{ key, value: JSON.stringify(deadLetter) }]);
    }
  }
};
