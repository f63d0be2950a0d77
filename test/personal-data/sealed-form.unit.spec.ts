import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  cancelledWithPlainReason,
  orderEvents,
  placedWithSealedFields,
} from '../../domain/orders/order-events.ts';
import { orderPersonalData } from '../../domain/orders/personal-data.ts';
import { createEventCodec } from '../../domain/shared/event-codec.ts';
import { withLegacyTokensSealed } from '../../infrastructure/personal-data/field-cipher.ts';
import { storedWithSealedFields } from '../../infrastructure/personal-data/seal-events.ts';
import { orderPlaced } from '../support/order-fixtures.ts';

// The first personal-data release stored a sealed field as its bare token string, `pd1.<owner>.<bytes>`,
// and kept a client's text of that shape as it was sent. Sealed fields are objects now; what that release
// stored is read through the upcaster (and, where events are shown as written, storedWithSealedFields).

const codec = createEventCodec(orderEvents);
const bytes = 'A'.repeat(60);

describe('OrderPlaced v1 -> v2 (sealed fields as objects)', () => {
  const customerId = randomUUID();
  const v1 = (note: string | null, street = `pd1.${customerId}.${bytes}`) => ({
    ...orderPlaced().data,
    customerId,
    shippingAddress: { street, city: `pd1.${customerId}.${bytes}`, postalCode: '3000', country: 'CH' },
    note,
  });

  it("reads a token naming the order's customer as a sealed field, plain text as text", () => {
    const decoded = codec.decode({
      type: 'OrderPlaced',
      data: v1('leave it at the door'),
      schemaVersion: 1,
    })!;
    expect(decoded.data).toMatchObject({
      shippingAddress: {
        street: { sealed: `pd1.${customerId}.${bytes}` },
        city: { sealed: `pd1.${customerId}.${bytes}` },
        postalCode: '3000',
        country: 'CH',
      },
      note: 'leave it at the door',
    });
  });

  it("reads text naming another owner as the text it is: no other owner's key is tried on it", () => {
    const attacker = `pd1.${randomUUID()}.${bytes}`;
    expect(placedWithSealedFields(v1(attacker, attacker)).note).toBe(attacker);
    expect(placedWithSealedFields(v1(attacker, attacker)).shippingAddress.street).toBe(attacker);
  });

  it('leaves every other field, and a null note, as they were', () => {
    const data = v1(null);
    const { shippingAddress, ...rest } = placedWithSealedFields(data);
    const { shippingAddress: _before, ...restBefore } = data;
    expect(rest).toEqual(restBefore);
    expect(shippingAddress.postalCode).toBe('3000');
  });

  it('shows an event as written (audit, history, export) with the same reading, and later versions as they are', () => {
    const data = v1(`pd1.${randomUUID()}.${bytes}`);
    const shown = storedWithSealedFields(orderPersonalData, { type: 'OrderPlaced', data, version: 1 });
    expect(shown).toEqual(placedWithSealedFields(data));
    const v2 = { ...data, note: `pd1.${customerId}.${bytes}` };
    expect(storedWithSealedFields(orderPersonalData, { type: 'OrderPlaced', data: v2, version: 2 })).toBe(v2);
  });
});

describe('OrderCancelled v1 -> v2 (the reason is personal)', () => {
  it('a reason written before reasons were sealed stays the text it was', () => {
    const v1 = { orderId: randomUUID(), reason: 'changed my mind', cancelledAt: '2026-11-25T10:00:00.000Z' };
    expect(cancelledWithPlainReason(v1)).toEqual(v1);
    expect(codec.decode({ type: 'OrderCancelled', data: v1 })!.data).toEqual(v1);
    expect(storedWithSealedFields(orderPersonalData, { type: 'OrderCancelled', data: v1, version: 1 })).toBe(
      v1,
    );
  });

  it('version 2 holds a sealed reason as an object, and a string as text', () => {
    const sealed = { sealed: `pd1.${randomUUID()}.${bytes}` };
    const v2 = { orderId: randomUUID(), reason: sealed, cancelledAt: '2026-11-25T10:00:00.000Z' };
    expect(codec.decode({ type: 'OrderCancelled', data: v2, schemaVersion: 2 })!.data).toEqual(v2);
    expect(() =>
      codec.decode({
        type: 'OrderCancelled',
        data: { ...v2, reason: { sealed: 'not a token' } },
        schemaVersion: 2,
      }),
    ).toThrow(/reason/);
  });
});

describe('JSON text kept by the first personal-data release (idempotent answers, retry state)', () => {
  const customerId = randomUUID();
  const token = `pd1.${customerId}.${bytes}`;

  it("reads a bare token naming the text's customer as a sealed field, anything else as it was", () => {
    const other = `pd1.${randomUUID()}.${bytes}`;
    const kept = JSON.stringify({ customerId, shippingAddress: { street: token }, note: other });
    expect(JSON.parse(withLegacyTokensSealed(kept))).toEqual({
      customerId,
      shippingAddress: { street: { sealed: token } },
      note: other,
    });
  });

  it("leaves this release's text alone: it holds sealed objects, and its strings are a client's", () => {
    const now = JSON.stringify({ customerId, shippingAddress: { street: { sealed: token } }, note: token });
    expect(withLegacyTokensSealed(now)).toBe(now);
    const aboutNoCustomer = JSON.stringify({ note: token });
    expect(withLegacyTokensSealed(aboutNoCustomer)).toBe(aboutNoCustomer);
  });
});
