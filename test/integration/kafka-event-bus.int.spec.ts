import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventBus } from '../../infrastructure/bus/event-bus.ts';
import { createKafkaEventBus } from '../../infrastructure/bus/kafka-event-bus.ts';
import { createInbox, eventBusContract, message, numbersByKey } from '../contracts/event-bus.contract.ts';
import { requiredServer } from '../support/integration-env.ts';

const createBus = async (): Promise<EventBus> =>
  createKafkaEventBus({
    brokers: requiredServer('KAFKA_BROKERS').split(','),
    clientId: `event-bus-test-${randomUUID()}`,
    logger: pino({ level: 'silent' }),
    retryDelayMs: 100,
    // The broker's minimum; heartbeats every 600 ms make rebalances quick.
    sessionTimeoutMs: 6000,
    maxWaitTimeMs: 200,
  });

eventBusContract('Kafka', createBus);

describe('Kafka event bus', () => {
  const opened: EventBus[] = [];
  const openBus = async () => {
    const bus = await createBus();
    opened.push(bus);
    return bus;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((bus) => bus.close()));
  });
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('resumes a group that stopped and joined again after the last message it handled', async () => {
    const bus = await openBus();
    const topic = `orders-${randomUUID()}`;
    const group = `dispatcher-${randomUUID()}`;
    const keys = range(4).map((k) => `order-${k}-${randomUUID()}`);
    const inbox = createInbox();

    const first = await bus.consume({ group, topics: [topic], handle: inbox.handle });
    for (const n of range(10))
      await bus.publish(
        topic,
        keys.map((key) => message(key, n)),
      );
    await inbox.received(40);
    await first.stop();
    for (const n of range(10))
      await bus.publish(
        topic,
        keys.map((key) => message(key, 10 + n)),
      );
    await bus.consume({ group, topics: [topic], handle: inbox.handle });
    await inbox.received(80);

    expect(inbox.handled).toHaveLength(80);
    for (const key of keys) expect(numbersByKey(inbox.handled).get(key)).toEqual(range(20));
  });

  it('gives a new group the messages published before it first joined', async () => {
    const bus = await openBus();
    const topic = `orders-${randomUUID()}`;
    const key = `order-${randomUUID()}`;
    await bus.publish(
      topic,
      range(5).map((n) => message(key, n)),
    );

    const inbox = createInbox();
    await bus.consume({ group: `late-${randomUUID()}`, topics: [topic], handle: inbox.handle });
    await inbox.received(5);

    expect(numbersByKey(inbox.handled).get(key)).toEqual(range(5));
  });
});
