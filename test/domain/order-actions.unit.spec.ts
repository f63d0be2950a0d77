import { describe, expect, it } from 'vitest';
import { availableActions, type OrderStanding } from '../../domain/orders/order-actions.ts';
import { decide, evolve, initialState, type OrderState } from '../../domain/orders/order-decider.ts';
import type { OrderCommand, OrderStatus } from '../../domain/orders/order.ts';
import { orderStatuses } from '../../domain/orders/order.ts';

const customer = { userId: 'ann', roles: ['customer'] };
const otherCustomer = { userId: 'bob', roles: ['customer'] };
const staff = { userId: 'sam', roles: ['staff'] };
const auditor = { userId: 'ada', roles: ['auditor'] };

const standing = (status: OrderStatus, outstandingMinor = 1000): OrderStanding => ({
  customerId: 'ann',
  status,
  outstandingMinor,
});

describe('the actions a caller may take on an order now', () => {
  it.each([
    ['pending', ['confirm', 'record-payment', 'cancel']],
    ['confirmed', ['ship', 'record-payment', 'cancel']],
    ['shipped', ['deliver', 'record-payment']],
    ['delivered', ['record-payment']],
    ['cancelled', []],
  ] as const)('gives staff, on a %s order with something outstanding, %j', (status, actions) => {
    expect(availableActions(standing(status), staff)).toEqual(actions);
  });

  it('offers no payment once the order is paid in full, nor on a cancelled order, whose payments are owed back', () => {
    expect(availableActions(standing('confirmed', 0), staff)).toEqual(['ship', 'cancel']);
    expect(availableActions(standing('cancelled', 1000), staff)).toEqual([]);
  });

  it('lets a customer cancel its own pending or confirmed order, and nothing else', () => {
    expect(availableActions(standing('pending'), customer)).toEqual(['cancel']);
    expect(availableActions(standing('confirmed'), customer)).toEqual(['cancel']);
    expect(availableActions(standing('shipped'), customer)).toEqual([]);
    expect(availableActions(standing('cancelled'), customer)).toEqual([]);
    expect(availableActions(standing('pending'), otherCustomer)).toEqual([]);
  });

  it('gives an auditor nothing to do, and a customer who is also an auditor only its own cancel', () => {
    expect(availableActions(standing('pending'), auditor)).toEqual([]);
    expect(availableActions(standing('pending'), { userId: 'ann', roles: ['customer', 'auditor'] })).toEqual([
      'cancel',
    ]);
    expect(availableActions(standing('pending'), { userId: 'bob', roles: ['customer', 'auditor'] })).toEqual(
      [],
    );
  });

  it('names only actions the decider accepts from that status, for every status', () => {
    const commandFor = (action: string): OrderCommand => {
      const at = '2026-11-27T10:00:00.000Z';
      const orderId = 'o-1';
      switch (action) {
        case 'confirm':
          return { type: 'ConfirmOrder', data: { orderId, confirmedAt: at } };
        case 'ship':
          return {
            type: 'ShipOrder',
            data: {
              orderId,
              shippedAt: at,
              shipment: { carrier: null, trackingNumber: null, trackingUrl: null },
            },
          };
        case 'deliver':
          return { type: 'DeliverOrder', data: { orderId, deliveredAt: at } };
        case 'cancel':
          return { type: 'CancelOrder', data: { orderId, reason: null, cancelledAt: at } };
        default:
          return {
            type: 'RecordPayment',
            data: {
              orderId,
              paymentId: 'p-1',
              amount: { amountMinor: 100, currency: 'EUR' },
              reference: 'ref-1',
              receivedAt: at,
            },
          };
      }
    };
    for (const status of orderStatuses) {
      const state: OrderState = {
        ...(initialState() as object),
        status,
        currency: 'EUR',
        totalMinor: 1000,
        paidMinor: 0,
        paymentReferences: new Map(),
      };
      for (const action of availableActions(standing(status), staff)) {
        expect(
          () => evolve(state, decide(commandFor(action), state)[0]!),
          `${action} on ${status}`,
        ).not.toThrow();
      }
    }
  });
});
