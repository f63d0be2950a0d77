import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { orderEvents, shippedWithoutDetails, type OrderEvent } from '../../domain/orders/order-events.ts';
import type { EventCatalog } from '../../domain/shared/event-versions.ts';
import { subscriptionEvents } from '../../domain/webhook-subscriptions/subscription-events.ts';
import { createEventCodec, EventSchemaError } from '../../domain/shared/event-codec.ts';
import { at, orderId, orderPlaced } from '../support/order-fixtures.ts';

const codec = createEventCodec(orderEvents);

/** An event as the store hands it back: its type, its data as written, and the version it was written in. */
type Stored = { type: string; data: Record<string, unknown>; schemaVersion?: number };

const shippedV1 = { orderId, shippedAt: at(2) };
const shippedV2 = {
  orderId,
  shippedAt: at(2),
  carrier: 'DHL',
  trackingNumber: 'JD0146 0000 1234',
  trackingUrl: 'https://track.example/JD01460000001234',
};

/** Freezes a value and everything in it: writing to any part of it throws. */
const deepFrozen = <T>(value: T): T => {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFrozen(inner);
    Object.freeze(value);
  }
  return value;
};

const decodeError = (stored: Stored): EventSchemaError => {
  try {
    codec.decode(stored);
  } catch (error) {
    expect(error).toBeInstanceOf(EventSchemaError);
    return error as EventSchemaError;
  }
  throw new Error(`decoding ${JSON.stringify(stored)} should have failed`);
};

describe('encode: what is written', () => {
  it('writes each event in the current version of its type', () => {
    const shipped: OrderEvent = { type: 'OrderShipped', data: shippedV2 };
    expect(codec.encode(shipped)).toEqual({ type: 'OrderShipped', data: shippedV2, schemaVersion: 2 });
    expect(codec.encode(orderPlaced())).toEqual({
      type: 'OrderPlaced',
      data: orderPlaced().data,
      schemaVersion: 2,
    });
  });

  it('refuses data that does not fit the current schema, naming the type, the version and every field', () => {
    const missingDetails = { type: 'OrderShipped', data: shippedV1 } as unknown as OrderEvent;
    expect(() => codec.encode(missingDetails)).toThrow(EventSchemaError);
    expect(() => codec.encode(missingDetails)).toThrow(
      /^OrderShipped v2 does not fit its schema: carrier: .*; trackingNumber: .*; trackingUrl: /,
    );
  });

  it('refuses a field the schema does not have, so that nothing unvalidated is ever stored', () => {
    const placed = orderPlaced();
    const withExtra = { ...placed, data: { ...placed.data, password: 'hunter2' } } as OrderEvent;
    expect(() => codec.encode(withExtra)).toThrow(/^OrderPlaced v2 does not fit its schema: .*password/);
  });

  it('refuses money that is not in whole minor units', () => {
    const placed = orderPlaced();
    const fractional = {
      ...placed,
      data: { ...placed.data, total: { amountMinor: 44.98, currency: 'EUR' } },
    } as OrderEvent;
    expect(() => codec.encode(fractional)).toThrow(
      /^OrderPlaced v2 does not fit its schema: total\.amountMinor/,
    );
  });

  it('refuses a type that is not of its catalogue', () => {
    const foreign = { type: 'WebhookSubscriptionRemoved', data: {} } as unknown as OrderEvent;
    expect(() => codec.encode(foreign)).toThrow(
      new EventSchemaError('WebhookSubscriptionRemoved is not an event of this catalogue'),
    );
  });
});

describe('decode: what is read', () => {
  it('reads an event of the current version as it was written', () => {
    const written = codec.encode({ type: 'OrderShipped', data: shippedV2 });
    expect(codec.decode(written)).toEqual({ type: 'OrderShipped', data: shippedV2 });
    expect(codec.decode(codec.encode(orderPlaced()))).toEqual(orderPlaced());
  });

  it('reads OrderShipped v1 as version 2, without carrier, tracking number or tracking page', () => {
    const expected = {
      type: 'OrderShipped',
      data: { ...shippedV1, carrier: null, trackingNumber: null, trackingUrl: null },
    };
    expect(codec.decode({ type: 'OrderShipped', data: shippedV1, schemaVersion: 1 })).toEqual(expected);
  });

  it('reads WebhookTestRequested v1, from before an admin could choose the type, as a test of webhook.test', () => {
    const subscriptions = createEventCodec(subscriptionEvents);
    const v1 = { subscriptionId: orderId, requestedAt: at(1) };
    for (const schemaVersion of [1, undefined]) {
      expect(
        subscriptions.decode({
          type: 'WebhookTestRequested',
          data: v1,
          ...(schemaVersion ? { schemaVersion } : {}),
        }),
      ).toEqual({ type: 'WebhookTestRequested', data: { ...v1, eventType: 'webhook.test' } });
    }
    const v2 = { type: 'WebhookTestRequested', data: { ...v1, eventType: 'order.status_changed' } } as const;
    expect(subscriptions.decode(subscriptions.encode(v2))).toEqual(v2);
  });

  it('reads an event stored without a version (before versions were kept) as version 1', () => {
    expect(codec.decode({ type: 'OrderShipped', data: shippedV1 })).toEqual({
      type: 'OrderShipped',
      data: { ...shippedV1, carrier: null, trackingNumber: null, trackingUrl: null },
    });
    expect(codec.decode({ type: 'OrderPlaced', data: orderPlaced().data })).toEqual(orderPlaced());
  });

  it('refuses stored data that does not fit the version it claims, naming the type, the version and the field', () => {
    expect(decodeError({ type: 'OrderShipped', data: { orderId }, schemaVersion: 1 }).message).toMatch(
      /^OrderShipped v1 does not fit its schema: shippedAt: /,
    );
    expect(
      decodeError({ type: 'OrderShipped', data: { ...shippedV2, carrier: 42 }, schemaVersion: 2 }).message,
    ).toMatch(/^OrderShipped v2 does not fit its schema: carrier: /);
    expect(
      decodeError({ type: 'OrderConfirmed', data: { orderId, confirmedAt: 'yesterday' } }).message,
    ).toMatch(/^OrderConfirmed v1 does not fit its schema: confirmedAt: /);
  });

  it('refuses version 2 data that lost its version, rather than reading it as version 1', () => {
    expect(decodeError({ type: 'OrderShipped', data: shippedV2 }).message).toMatch(
      /^OrderShipped v1 does not fit its schema: .*carrier/,
    );
  });

  it('refuses a version no code of this service reads: a newer one, or none at all', () => {
    for (const schemaVersion of [3, 0, -1, 1.5]) {
      expect(decodeError({ type: 'OrderShipped', data: shippedV2, schemaVersion }).message).toBe(
        `OrderShipped v${schemaVersion} is not a version this service reads`,
      );
    }
  });

  it("reads nothing of another feature's events, or of a type no catalogue has", () => {
    const registered = { type: 'WebhookSubscriptionRegistered', data: {}, schemaVersion: 1 };
    expect(codec.decode(registered)).toBeUndefined();
    expect(codec.decode({ type: 'SomethingHappened', data: {} })).toBeUndefined();
    // The names of an object's own machinery are no event types either.
    for (const type of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(codec.decode({ type, data: {} })).toBeUndefined();
      expect(codec.knows(type)).toBe(false);
    }
  });
});

describe('stored bytes never change', () => {
  it('decoding leaves the stored event as it was, whatever version it is in', () => {
    const stored: Stored[] = [
      { type: 'OrderShipped', data: shippedV1 },
      { type: 'OrderShipped', data: shippedV1, schemaVersion: 1 },
      { type: 'OrderShipped', data: shippedV2, schemaVersion: 2 },
      { type: 'OrderPlaced', data: orderPlaced().data, schemaVersion: 1 },
    ];
    for (const event of stored) {
      const before = structuredClone(event);
      // Frozen: any write into it, however deep, would throw.
      const decoded = codec.decode(deepFrozen(event))!;
      expect(event).toEqual(before);
      // What is decoded is a copy: changing it changes nothing stored.
      expect(decoded.data).not.toBe(event.data);
    }
  });

  it('the upcaster is pure: it returns a new value and leaves its input as it was', () => {
    const v1 = deepFrozen({ ...shippedV1 });
    const v2 = shippedWithoutDetails(v1);
    expect(v2).not.toBe(v1);
    expect(v1).toEqual(shippedV1);
    expect(shippedWithoutDetails(v1)).toEqual(v2);
  });
});

describe('a catalogue', () => {
  it.each([
    ['orders', orderEvents],
    ['webhook subscriptions', subscriptionEvents],
  ] as const)('of %s has one upcaster per step between versions', (_, catalog) => {
    for (const [type, versions] of Object.entries(catalog as EventCatalog<{ type: string; data: unknown }>)) {
      expect(versions.upcast, type).toHaveLength(versions.schemas.length - 1);
    }
  });

  it('has OrderShipped, OrderPlaced, OrderCancelled, the URL-bearing subscription events and WebhookTestRequested at version 2, every other at 1', () => {
    const atTwo = ['OrderShipped', 'OrderPlaced', 'OrderCancelled'];
    for (const type of Object.keys(orderEvents) as OrderEvent['type'][]) {
      expect(codec.currentVersion(type), type).toBe(atTwo.includes(type) ? 2 : 1);
    }
    // A subscription's URL is sealed from version 2 on (it may carry a credential); a test request names
    // its event type from version 2 on.
    const subscriptions = createEventCodec(subscriptionEvents);
    const urlAtTwo = ['WebhookSubscriptionRegistered', 'WebhookSubscriptionChanged', 'WebhookTestRequested'];
    for (const type of Object.keys(subscriptionEvents) as (keyof typeof subscriptionEvents)[]) {
      expect(subscriptions.currentVersion(type), type).toBe(urlAtTwo.includes(type) ? 2 : 1);
    }
  });
});

describe('versions in several steps', () => {
  // A type that changed twice: version 1 had `name`, version 2 renamed it, version 3 added `locale`.
  type Renamed = { type: 'Renamed'; data: { id: string; fullName: string; locale: string } };
  const v1 = z.strictObject({ id: z.string(), name: z.string() });
  const v2 = z.strictObject({ id: z.string(), fullName: z.string() });
  const v3 = z.strictObject({ id: z.string(), fullName: z.string(), locale: z.string() });
  const steps = {
    nameIsFullName: ({ name, ...rest }: z.infer<typeof v1>): z.infer<typeof v2> => ({
      ...rest,
      fullName: name,
    }),
    englishUntilToldOtherwise: (data: z.infer<typeof v2>): z.infer<typeof v3> => ({ ...data, locale: 'en' }),
  };
  const renamed = (upcast: EventCatalog<Renamed>['Renamed']['upcast']) =>
    createEventCodec<Renamed>({ Renamed: { schemas: [v1, v2, v3], upcast } });

  it('reads each old version through every step after it, in order', () => {
    const versions = renamed([steps.nameIsFullName, steps.englishUntilToldOtherwise]);
    const current = { type: 'Renamed', data: { id: 'a', fullName: 'Ann', locale: 'en' } };
    expect(versions.decode({ type: 'Renamed', data: { id: 'a', name: 'Ann' } })).toEqual(current);
    expect(
      versions.decode({ type: 'Renamed', data: { id: 'a', fullName: 'Ann' }, schemaVersion: 2 }),
    ).toEqual(current);
    expect(versions.encode(current as Renamed).schemaVersion).toBe(3);
  });

  it('checks what each step gives against the next version, naming the version it misses', () => {
    const faulty = renamed([steps.nameIsFullName, (data: z.infer<typeof v2>) => data]);
    expect(() => faulty.decode({ type: 'Renamed', data: { id: 'a', name: 'Ann' } })).toThrow(
      /^Renamed v3 does not fit its schema: locale: /,
    );
  });
});
