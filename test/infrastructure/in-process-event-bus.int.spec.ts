import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jsonMessage, type ConsumedMessage } from '../../infrastructure/bus/event-bus.ts';
import { createInProcessEventBus } from '../../infrastructure/bus/in-process-event-bus.ts';
import { createInbox, eventBusContract, message, numbersByKey } from '../contracts/event-bus.contract.ts';

eventBusContract('in-process', async () => createInProcessEventBus());

describe('in-process event bus', () => {
  const topic = 'order-events';
  const key = `order-${randomUUID()}`;

  it('hands on a message published as an object as that object, its text made only if read', async () => {
    const bus = createInProcessEventBus();
    const inbox = createInbox();
    await bus.consume({ group: 'dispatcher', topics: [topic], handle: inbox.handle });
    let stringified = 0;
    const object = { key, n: 1, toJSON: () => (stringified++, { key, n: 1 }) };

    await bus.publish(topic, [jsonMessage(key, object)]);
    const [consumed] = inbox.handled;
    expect(consumed!.parsed).toBe(object);
    expect(stringified).toBe(0);
    expect(consumed!.value).toBe(JSON.stringify({ key, n: 1 }));
    expect(consumed!.value).toBe(JSON.stringify({ key, n: 1 }));
    expect(stringified).toBe(1);
    // Logged or serialized whole, a message keeps its value.
    expect(JSON.parse(JSON.stringify(consumed))).toEqual({
      topic,
      key,
      value: '{"key":"' + key + '","n":1}',
    });
  });

  it('resolves publish only once every group has handled the messages', async () => {
    const bus = createInProcessEventBus();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const handling = new Promise<void>((resolve) => (started = resolve));
    await bus.consume({ group: 'slow', topics: [topic], handle: () => (started(), released) });
    let published = false;

    const publishing = bus.publish(topic, [message(key, 0)]).then(() => (published = true));
    await handling;
    expect(published).toBe(false);
    release();
    await publishing;
    expect(published).toBe(true);
  });

  it('rejects the publish when a handler throws, while the other groups still get the messages', async () => {
    const bus = createInProcessEventBus();
    const failure = new Error('cannot store it now');
    let calls = 0;
    const failingOnce = createInbox(() => {
      if (calls++ === 0) throw failure;
    });
    const healthy = createInbox();
    await bus.consume({ group: 'failing', topics: [topic], handle: failingOnce.handle });
    await bus.consume({ group: 'healthy', topics: [topic], handle: healthy.handle });

    await expect(bus.publish(topic, [message(key, 0)])).rejects.toBe(failure);
    expect(healthy.handled).toEqual([{ topic, ...message(key, 0) }]);
    await bus.publish(topic, [message(key, 0)]);

    expect(failingOnce.handled).toEqual([{ topic, ...message(key, 0) }]);
    expect(healthy.handled).toHaveLength(2);
  });

  it('refuses the publishes queued behind a failed one, so that nothing overtakes what is published again', async () => {
    const bus = createInProcessEventBus();
    const attempts: (readonly ConsumedMessage[])[] = [];
    const inbox = createInbox((batch) => {
      attempts.push(batch);
      if (attempts.length === 1) throw new Error('cannot store it now');
    });
    await bus.consume({ group: 'dispatcher', topics: [topic], handle: inbox.handle });

    const results = await Promise.allSettled([
      bus.publish(topic, [message(key, 0)]),
      bus.publish(topic, [message(key, 1)]),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(attempts).toHaveLength(1);
    await bus.publish(topic, [message(key, 0)]);
    await bus.publish(topic, [message(key, 1)]);

    expect(numbersByKey(inbox.handled).get(key)).toEqual([0, 1]);
  });

  it('keeps nothing published while no group consumes the topic', async () => {
    const bus = createInProcessEventBus();
    await bus.publish(topic, [message(key, 0)]);
    const inbox = createInbox();
    await bus.consume({ group: 'late', topics: [topic], handle: inbox.handle });
    await bus.publish(topic, [message(key, 1)]);

    expect(numbersByKey(inbox.handled).get(key)).toEqual([1]);
  });
});
