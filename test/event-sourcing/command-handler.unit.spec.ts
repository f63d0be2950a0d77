import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { orderDecider, type OrderState } from '../../domain/orders/order-decider.ts';
import { InvalidStateTransitionError, OrderAlreadyExistsError } from '../../domain/orders/order-errors.ts';
import { orderEvents, type OrderEvent } from '../../domain/orders/order-events.ts';
import { orderStreamName, type OrderCommand } from '../../domain/orders/order.ts';
import type { Decider } from '../../domain/shared/decider.ts';
import { subscriptionDecider } from '../../domain/webhook-subscriptions/subscription-decider.ts';
import {
  subscriptionEvents,
  type SubscriptionEvent,
} from '../../domain/webhook-subscriptions/subscription-events.ts';
import { subscriptionStreamName } from '../../domain/webhook-subscriptions/subscription.ts';
import {
  ConcurrencyExhaustedError,
  createCommandHandler,
} from '../../infrastructure/event-sourcing/command-handler.ts';
import { createEventCodec, EventSchemaError, type EventCodec } from '../../domain/shared/event-codec.ts';
import {
  NO_STREAM,
  type EventMetadata,
  type EventStore,
  type EventToAppend,
} from '../../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import { watchedEventStore } from '../support/event-store-spies.ts';
import {
  at,
  noShipmentDetails,
  orderConfirmed,
  orderId,
  orderPlaced,
  placeOrder,
} from '../support/order-fixtures.ts';

// The kernel's command loop, once, against the project's event store in memory (node:sqlite ':memory:',
// the adapter the embedded default runs on a file): read the stream through the codec, check the
// precondition, decide, append at the revision read, read and decide again when another writer was first.

const orderCodec = createEventCodec(orderEvents);
const stream = orderStreamName(orderId);

/** Who acted, in answer to which request: what the HTTP layer gives every command. */
const metadata: EventMetadata = {
  actor: { userId: 'staff-1', roles: ['staff'] },
  correlationId: 'request-1',
  causationId: 'request-1',
  occurredAt: at(10),
};
const byAnotherWriter: EventMetadata = { ...metadata, correlationId: 'request-2', causationId: 'request-2' };

const stores: EventStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** Events as a writer of this release stores them: encoded in their current version. */
const written = <E extends { type: string; data: unknown }>(
  codec: EventCodec<E>,
  events: E[],
  with_: EventMetadata = byAnotherWriter,
): EventToAppend[] =>
  events.map((event) => {
    const { type, data, schemaVersion } = codec.encode(event);
    return { id: randomUUID(), type, data, metadata: { ...with_, schemaVersion } };
  });

/** Given these events in the stream (none: no stream), an in-memory log holding them, watched. */
const given = async <E extends { type: string; data: unknown }>(
  streamId: string,
  events: E[],
  codec: EventCodec<E> = orderCodec as unknown as EventCodec<E>,
) => {
  const store = createSqliteEventStore({ path: ':memory:' });
  stores.push(store);
  if (events.length > 0) {
    await store.appendToStream(streamId, written(codec, events), { expectedRevision: NO_STREAM });
  }
  return watchedEventStore(store);
};

let ids = 0;
const handlerOn = <C, E extends { type: string; data: unknown }, S>(
  eventStore: EventStore,
  decider: Decider<C, E, S>,
  codec: EventCodec<E>,
  maxAttempts?: number,
) =>
  createCommandHandler({
    eventStore,
    codec,
    decider,
    newId: () => `event-${++ids}`,
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
  });
const orderHandlerOn = (eventStore: EventStore, maxAttempts?: number) =>
  handlerOn<OrderCommand, OrderEvent, OrderState>(eventStore, orderDecider, orderCodec, maxAttempts);

const confirm: OrderCommand = { type: 'ConfirmOrder', data: { orderId, confirmedAt: at(10) } };
const cancel: OrderCommand = { type: 'CancelOrder', data: { orderId, reason: null, cancelledAt: at(10) } };
const ship = (shipment = noShipmentDetails): OrderCommand => ({
  type: 'ShipOrder',
  data: { orderId, shippedAt: at(10), shipment },
});
const payment = (paymentId: string): OrderEvent => ({
  type: 'PaymentReceived',
  data: {
    orderId,
    paymentId,
    amount: { amountMinor: 1000, currency: 'EUR' },
    reference: 'bank transfer',
    receivedAt: at(5),
  },
});

/** The stream as stored: type, revision, data and metadata of each event. */
const storedIn = async (log: { store: EventStore }, streamId = stream) =>
  (await log.store.readStream(streamId)).map(({ type, revision, data, metadata: meta }) => ({
    type,
    revision,
    data,
    metadata: meta,
  }));
const typesIn = async (log: { store: EventStore }, streamId = stream) =>
  (await storedIn(log, streamId)).map((event) => event.type);

describe('deciding on the stream as read', () => {
  it('appends what the decision gives at the revision it read, with the metadata and the version of each event', async () => {
    const log = await given(stream, [orderPlaced()]);

    const handled = await orderHandlerOn(log.store).handle(stream, confirm, { metadata });

    expect(log.appends).toEqual([{ streamId: stream, expectedRevision: 0, types: ['OrderConfirmed'] }]);
    const stored = await storedIn(log);
    expect(stored[1]).toEqual({
      type: 'OrderConfirmed',
      revision: 1,
      data: { orderId, confirmedAt: at(10) },
      metadata: { ...metadata, schemaVersion: 1 },
    });
    expect((await log.store.readStream(stream))[1]!.id).toBe(`event-${ids}`);
    expect(handled).toMatchObject({
      history: [orderPlaced(), { type: 'OrderConfirmed', data: { orderId, confirmedAt: at(10) } }],
      appended: [{ type: 'OrderConfirmed', data: { orderId, confirmedAt: at(10) } }],
      state: { status: 'confirmed' },
      revision: 1,
      position: await log.store.headPosition(),
    });
  });

  it('stores OrderShipped as version 2, with its shipment details', async () => {
    const log = await given(stream, [orderPlaced(), orderConfirmed()]);
    const shipment = { carrier: 'DHL', trackingNumber: '00340434', trackingUrl: null };

    await orderHandlerOn(log.store).handle(stream, ship(shipment), { metadata });

    expect((await storedIn(log)).at(-1)).toEqual({
      type: 'OrderShipped',
      revision: 2,
      data: { orderId, shippedAt: at(10), ...shipment },
      metadata: { ...metadata, schemaVersion: 2 },
    });
  });

  it('reads the stream through the codec: an OrderShipped stored before versions is decided on as version 2', async () => {
    const log = await given(stream, [orderPlaced(), orderConfirmed()]);
    // As the release before versions wrote it: no carrier, no tracking, no schemaVersion.
    const { schemaVersion: _none, ...before } = byAnotherWriter;
    await log.store.appendToStream(
      stream,
      [{ id: randomUUID(), type: 'OrderShipped', data: { orderId, shippedAt: at(2) }, metadata: before }],
      { expectedRevision: 1 },
    );
    const deliver: OrderCommand = { type: 'DeliverOrder', data: { orderId, deliveredAt: at(10) } };

    const handled = await orderHandlerOn(log.store).handle(stream, deliver, { metadata });

    expect(handled.history[2]).toEqual({
      type: 'OrderShipped',
      data: { orderId, shippedAt: at(2), ...noShipmentDetails },
    });
    expect(await typesIn(log)).toEqual(['OrderPlaced', 'OrderConfirmed', 'OrderShipped', 'OrderDelivered']);
    // The stored v1 event is as it was.
    expect((await storedIn(log))[2]).toMatchObject({ data: { orderId, shippedAt: at(2) }, metadata: before });
  });

  it('starts a new stream without reading it when its id was just chosen, expecting no stream', async () => {
    const log = await given(stream, []);

    const handled = await orderHandlerOn(log.store).handle(stream, placeOrder(), {
      metadata,
      newStream: true,
    });

    expect(log.reads).toEqual([]);
    expect(log.appends).toEqual([{ streamId: stream, expectedRevision: NO_STREAM, types: ['OrderPlaced'] }]);
    expect(handled).toMatchObject({ revision: 0, state: { status: 'pending' } });
  });

  it('appends nothing when the decision is no event, and says where the stream is', async () => {
    const subscriptionId = randomUUID();
    const subscriptionStream = subscriptionStreamName(subscriptionId);
    const subscriptionCodec = createEventCodec(subscriptionEvents);
    const registered: SubscriptionEvent = {
      type: 'WebhookSubscriptionRegistered',
      data: {
        subscriptionId,
        url: 'https://hooks.shop.example/a',
        events: ['order.created'],
        description: null,
        secret: 'sealed',
        registeredAt: at(0),
      },
    };
    const disabled: SubscriptionEvent = {
      type: 'WebhookSubscriptionDisabled',
      data: { subscriptionId, reason: 'The receiver answered 410 Gone.', disabledAt: at(1) },
    };
    const log = await given(subscriptionStream, [registered, disabled], subscriptionCodec);

    // A second 410: the subscription is inactive already.
    const handled = await handlerOn(log.store, subscriptionDecider, subscriptionCodec).handle(
      subscriptionStream,
      { type: 'DisableSubscription', data: { subscriptionId, reason: 'again', disabledAt: at(2) } },
      { metadata },
    );

    expect(log.appends).toEqual([]);
    expect(handled).toMatchObject({
      appended: [],
      revision: 1,
      position: null,
      state: { status: 'inactive' },
    });
  });
});

describe('refusals', () => {
  it('checks the precondition against the history and state read, before deciding; a refusal appends nothing', async () => {
    const log = await given(stream, [orderPlaced()]);
    const refusal = new Error('412: not the version the client has');
    const seen: unknown[] = [];

    const attempt = orderHandlerOn(log.store).handle(stream, confirm, {
      metadata,
      precondition: (history, state) => {
        seen.push({ history, state });
        throw refusal;
      },
    });

    await expect(attempt).rejects.toBe(refusal);
    expect(seen).toEqual([
      { history: [orderPlaced()], state: expect.objectContaining({ status: 'pending' }) },
    ]);
    expect(log.appends).toEqual([]);
  });

  it("passes the decider's refusal on as it is, appending nothing", async () => {
    const log = await given(stream, [orderPlaced()]);

    await expect(orderHandlerOn(log.store).handle(stream, ship(), { metadata })).rejects.toBeInstanceOf(
      InvalidStateTransitionError,
    );
    expect(log.appends).toEqual([]);
    expect(await typesIn(log)).toEqual(['OrderPlaced']);
  });

  it('refuses an event that does not fit its schema before anything is appended', async () => {
    const log = await given(stream, [orderPlaced(), orderConfirmed()]);
    const unvalidated = ship({ carrier: 42, trackingNumber: null, trackingUrl: null } as never);

    await expect(orderHandlerOn(log.store).handle(stream, unvalidated, { metadata })).rejects.toThrow(
      EventSchemaError,
    );
    expect(log.appends).toEqual([]);
  });
});

describe('when another writer appends between the read and the append', () => {
  it('reads and decides again on the new history, and appends after it', async () => {
    const log = await given(stream, [orderPlaced()]);
    log.anotherWriterAppendsAfterRead(stream, () => written(orderCodec, [payment('payment-1')]));

    const handled = await orderHandlerOn(log.store).handle(stream, confirm, { metadata });

    expect(log.appends.map((append) => append.expectedRevision)).toEqual([0, 1]);
    expect(await typesIn(log)).toEqual(['OrderPlaced', 'PaymentReceived', 'OrderConfirmed']);
    expect(handled.history.map((event) => event.type)).toEqual([
      'OrderPlaced',
      'PaymentReceived',
      'OrderConfirmed',
    ]);
    expect(handled).toMatchObject({ revision: 2, state: { status: 'confirmed', paidMinor: 1000 } });
    // Ours carries our metadata, theirs theirs.
    expect((await storedIn(log)).map((event) => event.metadata.correlationId)).toEqual([
      'request-2',
      'request-2',
      'request-1',
    ]);
  });

  it('never writes what the new history forbids: a cancel raced by a ship is refused', async () => {
    const log = await given(stream, [orderPlaced(), orderConfirmed()]);
    log.anotherWriterAppendsAfterRead(stream, () =>
      written(orderCodec, [
        { type: 'OrderShipped', data: { orderId, shippedAt: at(5), ...noShipmentDetails } },
      ]),
    );

    const attempt = orderHandlerOn(log.store).handle(stream, cancel, { metadata });

    await expect(attempt).rejects.toBeInstanceOf(InvalidStateTransitionError);
    await expect(attempt).rejects.toMatchObject({ currentStatus: 'shipped', attemptedAction: 'cancel' });
    expect(await typesIn(log)).toEqual(['OrderPlaced', 'OrderConfirmed', 'OrderShipped']);
  });

  it('checks the precondition again: a client that has not seen the other change is refused', async () => {
    const log = await given(stream, [orderPlaced()]);
    log.anotherWriterAppendsAfterRead(stream, () => written(orderCodec, [payment('payment-1')]));
    const refusal = new Error('412');
    // If-Match as a client would send it: the order as it was at revision 0.
    const ifMatchRevision0 = (history: readonly OrderEvent[]) => {
      if (history.length !== 1) throw refusal;
    };

    await expect(
      orderHandlerOn(log.store).handle(stream, confirm, { metadata, precondition: ifMatchRevision0 }),
    ).rejects.toBe(refusal);
    expect(await typesIn(log)).toEqual(['OrderPlaced', 'PaymentReceived']);
  });

  it('gives up after its attempts when it loses every race, having appended nothing of its own', async () => {
    const log = await given(stream, [orderPlaced()]);
    let paymentIds = 0;
    log.anotherWriterAppendsAfterRead(
      stream,
      () => written(orderCodec, [payment(`payment-${++paymentIds}`)]),
      3,
    );

    const attempt = orderHandlerOn(log.store, 3).handle(stream, confirm, { metadata });

    await expect(attempt).rejects.toBeInstanceOf(ConcurrencyExhaustedError);
    await expect(attempt).rejects.toMatchObject({ streamId: stream });
    expect(log.reads).toHaveLength(3);
    expect(log.appends.map((append) => append.expectedRevision)).toEqual([0, 1, 2]);
    expect(await typesIn(log)).toEqual([
      'OrderPlaced',
      'PaymentReceived',
      'PaymentReceived',
      'PaymentReceived',
    ]);
  });

  it('decides again on a new stream that another writer started first: the order exists already', async () => {
    const log = await given(stream, [orderPlaced()]);

    await expect(
      orderHandlerOn(log.store).handle(stream, placeOrder(), { metadata, newStream: true }),
    ).rejects.toBeInstanceOf(OrderAlreadyExistsError);
    expect(log.appends.map((append) => append.expectedRevision)).toEqual([NO_STREAM]);
    expect(log.reads).toEqual([stream]);
    expect(await typesIn(log)).toEqual(['OrderPlaced']);
  });
});

it('does not retry what is no conflict: a failing store fails the command at once', async () => {
  const log = await given(stream, [orderPlaced()]);
  const diskFull = new Error('SQLITE_FULL: database or disk is full');
  log.failAppendsWith(diskFull);

  await expect(orderHandlerOn(log.store).handle(stream, confirm, { metadata })).rejects.toBe(diskFull);
  expect(log.reads).toHaveLength(1);
  expect(log.appends).toHaveLength(1);
});
