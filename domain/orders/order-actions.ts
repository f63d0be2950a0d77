import { scopeOf, type Operation } from '../identity/permissions.ts';
import { allowedFrom } from './order-decider.ts';
import type { OrderAction, OrderStatus } from './order.ts';

/** Each action, in the order a client offers them, and the operation that grants it. */
const actionOperations: readonly (readonly [OrderAction, Operation])[] = [
  ['confirm', 'confirmOrder'],
  ['ship', 'shipOrder'],
  ['deliver', 'deliverOrder'],
  ['record-payment', 'recordPayment'],
  ['cancel', 'cancelOrder'],
];

/** Every action on an existing order, in the order a client offers them. */
export const orderActions = actionOperations.map(([action]) => action) as [OrderAction, ...OrderAction[]];

/** What deciding the actions needs of an order: who placed it, its status, what is still owed. */
export type OrderStanding = {
  customerId: string;
  status: OrderStatus;
  /** Total less what was paid, in minor units: a payment is possible only while it is above zero. */
  outstandingMinor: number;
};

export type Caller = { userId: string; roles: readonly string[] };

/**
 * The actions `caller` may take on the order as it stands now: allowed from its status by the lifecycle
 * (the decider's own table), a payment only while something is outstanding (so none on a cancelled order,
 * whose payments are owed back), and granted to one of the caller's roles for this order (a customer's own
 * only). A race can still make one refused: the decider has the last word.
 */
export const availableActions = (order: OrderStanding, caller: Caller): OrderAction[] =>
  actionOperations
    .filter(([action]) => allowedFrom[action].includes(order.status))
    .filter(([action]) => action !== 'record-payment' || order.outstandingMinor > 0)
    .filter(([, operation]) => {
      const scope = scopeOf(caller.roles, operation);
      return scope === 'any' || (scope === 'own' && caller.userId === order.customerId);
    })
    .map(([action]) => action);
