import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  jsonMessage,
  type BusMessage,
  type ConsumedMessage,
  type EventBus,
} from '../../infrastructure/bus/event-bus.ts';

const WAIT_MS = 30_000;

export const message = (key: string, n: number): BusMessage => ({ key, value: JSON.stringify({ key, n }) });

const numberOf = (handled: ConsumedMessage): number => (JSON.parse(handled.value) as { n: number }).n;

/** Each key's message numbers in the order they were handled. */
export const numbersByKey = (handled: readonly ConsumedMessage[]): Map<string, number[]> => {
  const byKey = new Map<string, number[]>();
  for (const m of handled) byKey.set(m.key, [...(byKey.get(m.key) ?? []), numberOf(m)]);
  return byKey;
};

/**
 * What a consumer handled. `before` runs first on each batch and may throw, which makes handle throw;
 * only batches handled without throwing are recorded. `until` resolves once a condition holds.
 */
export const createInbox = (before?: (batch: readonly ConsumedMessage[]) => void) => {
  const handled: ConsumedMessage[] = [];
  const batches: ConsumedMessage[][] = [];
  const checks = new Set<() => void>();
  const handle = async (batch: readonly ConsumedMessage[]) => {
    before?.(batch);
    batches.push([...batch]);
    handled.push(...batch);
    for (const check of [...checks]) check();
  };
  const until = (condition: () => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        checks.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        checks.delete(check);
        reject(new Error(`timed out waiting for ${what}; handled ${handled.length} messages`));
      }, WAIT_MS);
      checks.add(check);
      check();
    });
  const distinct = () => new Set(handled.map((m) => m.value)).size;
  return {
    handle,
    handled,
    batches,
    until,
    /** Resolves once n distinct messages were handled. */
    received: (n: number) => until(() => distinct() >= n, `${n} distinct messages`),
  };
};

/** Publishes like the relay: a rejected publish is published again. */
export const publishAtLeastOnce = async (bus: EventBus, topic: string, messages: readonly BusMessage[]) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await bus.publish(topic, messages);
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
};

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

export const eventBusContract = (adapterName: string, createBus: () => Promise<EventBus>) => {
  describe(`EventBus contract: ${adapterName}`, () => {
    const opened: EventBus[] = [];
    const openBus = async () => {
      const bus = await createBus();
      opened.push(bus);
      return bus;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((bus) => bus.close()));
    });
    const names = () => ({ topic: `orders-${randomUUID()}`, group: `dispatcher-${randomUUID()}` });

    it('keeps each key in publish order across interleaved, concurrent publishes', async () => {
      const bus = await openBus();
      const { topic, group } = names();
      const inbox = createInbox();
      await bus.consume({ group, topics: [topic], handle: inbox.handle });
      const keys = range(5).map((k) => `order-${k}-${randomUUID()}`);

      // 20 publishes of 10 messages, each carrying the next two of every key; not awaited one by one.
      await Promise.all(
        range(20).map((round) =>
          bus.publish(
            topic,
            [0, 1].flatMap((i) => keys.map((key) => message(key, round * 2 + i))),
          ),
        ),
      );
      await inbox.received(200);

      expect(inbox.handled.every((m) => m.topic === topic)).toBe(true);
      const byKey = numbersByKey(inbox.handled);
      expect([...byKey.keys()].sort()).toEqual([...keys].sort());
      for (const key of keys) expect(byKey.get(key)).toEqual(range(40));
    });

    it('gives every message to each of two groups', async () => {
      const bus = await openBus();
      const { topic } = names();
      const first = createInbox();
      const second = createInbox();
      await bus.consume({ group: `first-${randomUUID()}`, topics: [topic], handle: first.handle });
      await bus.consume({ group: `second-${randomUUID()}`, topics: [topic], handle: second.handle });
      const keys = ['a', 'b', 'c'].map((k) => `${k}-${randomUUID()}`);

      for (const n of range(10))
        await bus.publish(
          topic,
          keys.map((key) => message(key, n)),
        );
      await Promise.all([first.received(30), second.received(30)]);

      for (const inbox of [first, second]) {
        const byKey = numbersByKey(inbox.handled);
        for (const key of keys) expect(byKey.get(key)).toEqual(range(10));
      }
    });

    it('carries a message published as an object: its value is the JSON text, any object handed on equal to it', async () => {
      const bus = await openBus();
      const { topic, group } = names();
      const inbox = createInbox();
      await bus.consume({ group, topics: [topic], handle: inbox.handle });
      const key = `order-${randomUUID()}`;
      const objects = range(3).map((n) => ({
        key,
        n,
        text: 'ä "quoted" \u2028',
        nested: { list: [n, null] },
      }));

      await bus.publish(
        topic,
        objects.map((object) => jsonMessage(key, object)),
      );
      await inbox.received(3);

      expect(inbox.handled.map((m) => ({ topic: m.topic, key: m.key }))).toEqual(
        objects.map(() => ({ topic, key })),
      );
      expect(inbox.handled.map((m) => JSON.parse(m.value))).toEqual(objects);
      // A bus within the process may hand on the object itself; one between processes sends the text alone.
      for (const m of inbox.handled)
        if (m.parsed !== undefined) expect(m.parsed).toEqual(JSON.parse(m.value));
      expect(inbox.handled.map((m) => m.value)).toEqual(objects.map((object) => JSON.stringify(object)));
    });

    it('hands the messages of a batch whose handle threw again, before anything later of their keys', async () => {
      const bus = await openBus();
      const { topic, group } = names();
      let failed: readonly ConsumedMessage[] | undefined;
      const inbox = createInbox((batch) => {
        if (!failed && batch.some((m) => numberOf(m) >= 3)) {
          failed = batch;
          throw new Error('the dispatcher cannot store this batch right now');
        }
      });
      await bus.consume({ group, topics: [topic], handle: inbox.handle });
      const keys = range(5).map((k) => `order-${k}-${randomUUID()}`);

      for (const n of range(10))
        await publishAtLeastOnce(
          bus,
          topic,
          keys.map((key) => message(key, n)),
        );
      await inbox.received(50);

      expect(failed?.length).toBeGreaterThan(0);
      const failedValues = new Set(failed!.map((m) => m.value));
      expect(inbox.handled.filter((m) => failedValues.has(m.value)).length).toBeGreaterThanOrEqual(
        failedValues.size,
      );
      for (const [key, numbers] of numbersByKey(inbox.handled)) {
        // Duplicates are allowed (at least once), skipping ahead is not: each message comes only after
        // every earlier one of its key was handled.
        let highest = -1;
        for (const n of numbers) {
          expect(n, `key ${key} handled ${numbers.join(',')}`).toBeLessThanOrEqual(highest + 1);
          highest = Math.max(highest, n);
        }
        expect(highest).toBe(9);
      }
    });

    it('moves a message whose handling keeps failing to the dead-letter topic, and goes on', async () => {
      const bus = await openBus();
      const { topic, group } = names();
      const deadLetterTopic = `dead-letters-${randomUUID()}`;
      const poison = `order-poison-${randomUUID()}`;
      const healthy = `order-${randomUUID()}`;
      let failedHandlings = 0;
      const inbox = createInbox((batch) => {
        if (batch.some((m) => m.key === poison && numberOf(m) === 2)) {
          failedHandlings++;
          throw new Error('malformed event');
        }
      });
      const deadLetters = createInbox();
      await bus.consume({
        group: `reader-${randomUUID()}`,
        topics: [deadLetterTopic],
        handle: deadLetters.handle,
      });
      await bus.consume({
        group,
        topics: [topic],
        handle: inbox.handle,
        deadLetter: { topic: deadLetterTopic, maxAttempts: 3 },
      });

      for (const n of range(5)) {
        await publishAtLeastOnce(bus, topic, [message(poison, n), message(healthy, n)]);
      }
      await Promise.all([inbox.received(9), deadLetters.received(1)]);

      expect(numbersByKey(inbox.handled).get(poison)).toEqual([0, 1, 3, 4]);
      expect(numbersByKey(inbox.handled).get(healthy)).toEqual(range(5));
      // Three failed handlings of its batch, then one of the message alone.
      expect(failedHandlings).toBe(4);
      expect(deadLetters.handled).toHaveLength(1);
      const [deadLetter] = deadLetters.handled;
      expect(deadLetter!.key).toBe(poison);
      expect(JSON.parse(deadLetter!.value)).toEqual({
        reason: 'malformed event',
        group,
        topic,
        key: poison,
        value: message(poison, 2).value,
      });
    });

    it('hands nothing more to a stopped consumer', async () => {
      const bus = await openBus();
      const { topic, group } = names();
      let stopped = false;
      let handledAfterStop = 0;
      const inbox = createInbox(() => {
        if (stopped) handledAfterStop++;
      });
      const witness = createInbox();
      const consumer = await bus.consume({ group, topics: [topic], handle: inbox.handle });
      await bus.consume({ group: `witness-${randomUUID()}`, topics: [topic], handle: witness.handle });
      const key = `order-${randomUUID()}`;

      await bus.publish(topic, [message(key, 0)]);
      await Promise.all([inbox.received(1), witness.received(1)]);
      await consumer.stop();
      stopped = true;
      await bus.publish(topic, [message(key, 1), message(key, 2)]);
      await witness.received(3);

      expect(numbersByKey(inbox.handled).get(key)).toEqual([0]);
      expect(handledAfterStop).toBe(0);
    });

    it('shares one group between its consumers, each key to one of them', async () => {
      const bus = await openBus();
      const { topic, group } = names();
      const all = createInbox();
      const shares: ConsumedMessage[][] = [[], []];
      for (const share of shares) {
        const handle = async (batch: readonly ConsumedMessage[]) => {
          share.push(...batch);
          await all.handle(batch);
        };
        await bus.consume({ group, topics: [topic], handle });
      }
      const keys = range(20).map((k) => `order-${k}-${randomUUID()}`);

      for (const n of range(5))
        await bus.publish(
          topic,
          keys.map((key) => message(key, n)),
        );
      await all.received(100);

      expect(shares.map((share) => share.length > 0)).toEqual([true, true]);
      expect(shares[0]!.length + shares[1]!.length).toBe(100);
      for (const share of shares) {
        for (const numbers of numbersByKey(share).values()) expect(numbers).toEqual(range(5));
      }
    });

    it('treats publishing no messages as a no-op', async () => {
      const bus = await openBus();
      const { topic, group } = names();
      const inbox = createInbox();
      await bus.consume({ group, topics: [topic], handle: inbox.handle });
      const key = `order-${randomUUID()}`;

      await expect(bus.publish(topic, [])).resolves.toBeUndefined();
      await bus.publish(topic, [message(key, 0)]);
      await inbox.received(1);

      // A partitioned bus adds where the message came from (`source`).
      expect(inbox.batches).toEqual([[expect.objectContaining({ topic, ...message(key, 0) })]]);
    });
  });
};
