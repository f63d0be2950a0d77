import { describe, expect, it } from 'vitest';
import { detailsOf, evolveDetails } from '../../domain/orders/order-details.ts';
import { orderEvents, type OrderEvent } from '../../domain/orders/order-events.ts';
import { personalPathsIn } from '../../domain/shared/personal-data.ts';
import { orderResource, orderResourceSchema, refundDueOf } from '../../domain/orders/order-resource.ts';
import { orderPersonalData } from '../../domain/orders/personal-data.ts';
import { personalFieldsOf } from '../../domain/shared/resource-shapes.ts';
import { address, at, customerId, historyIn, line, orderId, orderPlaced } from '../support/order-fixtures.ts';

// The details fold (what an order shows) and the resource built from it, each given a history and then
// read: the command's answer and GET /orders/{id} are both this resource of this fold.

const paid = (amountMinor: number, paymentId: string): OrderEvent => ({
  type: 'PaymentReceived',
  data: {
    orderId,
    paymentId,
    amount: { amountMinor, currency: 'EUR' },
    reference: `ref-${paymentId}`,
    receivedAt: at(10),
  },
});

describe('the details fold', () => {
  it('knows no order before its first event, and refuses a change to an order never placed', () => {
    expect(detailsOf([])).toBeNull();
    expect(() => evolveDetails(null, historyIn('confirmed')[1]!)).toThrow(/never placed/);
  });

  it('starts a placed order pending, with its lines, total, address and no payment', () => {
    expect(detailsOf([orderPlaced()])).toEqual({
      status: 'pending',
      id: orderId,
      customerId,
      items: [line('p-1', 2, 1999), line('p-2', 1, 500)],
      total: { amountMinor: 4498, currency: 'EUR' },
      shippingAddress: address,
      note: null,
      payments: [],
      cancellationReason: null,
      createdAt: at(0),
      updatedAt: at(0),
    });
  });

  it.each([
    ['confirmed', at(1)],
    ['shipped', at(2)],
    ['delivered', at(3)],
    ['cancelled', at(4)],
  ] as const)('follows the order to %s, updated when that happened', (status, when) => {
    const details = detailsOf(historyIn(status))!;
    expect(details.status).toBe(status);
    expect(details.updatedAt).toBe(when);
    expect(details.createdAt).toBe(at(0));
  });

  it('keeps the shipment once shipped, with when it left', () => {
    const shipped: OrderEvent = {
      type: 'OrderShipped',
      data: { orderId, shippedAt: at(2), carrier: 'DHL', trackingNumber: 'T-1', trackingUrl: null },
    };
    expect(detailsOf([...historyIn('confirmed'), shipped])!.shipment).toEqual({
      carrier: 'DHL',
      trackingNumber: 'T-1',
      trackingUrl: null,
      shippedAt: at(2),
    });
    expect(detailsOf(historyIn('confirmed'))!).not.toHaveProperty('shipment');
  });

  it('lists payments in the order received, and a cancellation its reason', () => {
    const details = detailsOf([
      orderPlaced(),
      paid(1000, 'pay-1'),
      paid(500, 'pay-2'),
      { type: 'OrderCancelled', data: { orderId, reason: 'changed my mind', cancelledAt: at(11) } },
    ])!;
    expect(details.payments.map((payment) => payment.paymentId)).toEqual(['pay-1', 'pay-2']);
    expect(details.cancellationReason).toBe('changed my mind');
  });
});

describe('the order resource', () => {
  it('shows money as decimals with their currency and payments by id', () => {
    const resource = orderResource(detailsOf([orderPlaced(), paid(1999, 'pay-1')])!);
    expect(resource.total).toEqual({ amount: 44.98, currency: 'EUR' });
    expect(resource.items[0]).toEqual({
      productId: 'p-1',
      productName: 'Product p-1',
      quantity: 2,
      unitPrice: { amount: 19.99, currency: 'EUR' },
    });
    expect(resource.payments).toEqual([
      { id: 'pay-1', amount: { amount: 19.99, currency: 'EUR' }, reference: 'ref-pay-1', receivedAt: at(10) },
    ]);
    expect(resource).not.toHaveProperty('refundDue');
    expect(resource).not.toHaveProperty('shipment');
  });

  it('owes back what a cancelled order received, and nothing when it received nothing', () => {
    const cancelledAfterPaying = detailsOf([
      orderPlaced(),
      paid(1000, 'pay-1'),
      paid(250, 'pay-2'),
      historyIn('cancelled')[1]!,
    ])!;
    expect(orderResource(cancelledAfterPaying).refundDue).toEqual({ amount: 12.5, currency: 'EUR' });
    expect(refundDueOf(detailsOf(historyIn('cancelled'))!)).toBeUndefined();
    expect(refundDueOf(detailsOf([orderPlaced(), paid(1000, 'pay-1')])!)).toBeUndefined();
  });

  it('is the same JSON from the fold as from the read model’s stored copy of it (one ETag), key for key', () => {
    const details = detailsOf(historyIn('shipped'))!;
    expect(JSON.stringify(orderResource(details))).toBe(
      JSON.stringify(orderResource(JSON.parse(JSON.stringify(details)) as typeof details)),
    );
    expect(Object.keys(orderResource(details))).toEqual([
      'id',
      'status',
      'customerId',
      'items',
      'total',
      'shippingAddress',
      'note',
      'payments',
      'cancellationReason',
      'shipment',
      'createdAt',
      'updatedAt',
    ]);
  });
});

describe('the personal fields of the order resource', () => {
  it('are the ones its schema marks, and exactly those that copy a personal field of an event', () => {
    // Every personal field of every event (domain/orders/personal-data.ts) set to a marker; what shows the
    // marker in the resource is what the resource copies of personal data.
    const marker = { sealed: 'marker' };
    const withMarkers = (event: OrderEvent): OrderEvent => {
      const data = structuredClone(event.data) as Record<string, unknown>;
      for (const path of orderPersonalData[event.type]?.fields ?? []) {
        let holder = data;
        for (const key of path.slice(0, -1)) holder = holder[key] as Record<string, unknown>;
        holder[path.at(-1)!] = marker;
      }
      return { ...event, data } as OrderEvent;
    };
    const history = [orderPlaced(), historyIn('cancelled')[1]!].map(withMarkers);
    const resource = orderResource(detailsOf(history)!) as Record<string, unknown>;
    const copying = Object.keys(resource).filter((member) =>
      JSON.stringify(resource[member]).includes('marker'),
    );
    expect(copying.sort()).toEqual(personalFieldsOf(orderResourceSchema).sort());
    expect(copying.sort()).toEqual(['cancellationReason', 'note', 'shippingAddress']);
  });
});

describe('the personal fields of order events', () => {
  it('are read from the event schemas, and every event type that has any names their owner', () => {
    expect(orderPersonalData.OrderPlaced?.fields).toEqual([
      ['shippingAddress', 'street'],
      ['shippingAddress', 'city'],
      ['shippingAddress', 'postalCode'],
      ['shippingAddress', 'country'],
      ['note'],
    ]);
    expect(orderPersonalData.OrderCancelled?.fields).toEqual([['reason']]);
    const withPersonalFields = Object.entries(orderEvents)
      .filter(([, versions]) => personalPathsIn(versions.schemas.at(-1)!).length > 0)
      .map(([type]) => type);
    expect(withPersonalFields.sort()).toEqual(Object.keys(orderPersonalData).sort());
  });
});
