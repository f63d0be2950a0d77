import type { CarefulClient, WriteResult } from './careful-client.ts';

/** A signed-in user of the load: a bearer header, and for a customer the address its orders ship to. */
export type LoadActor = { id: string; auth: { Authorization: string }; addressId?: string };

export type WriteKind = 'place' | 'confirm' | 'pay' | 'ship' | 'deliver' | 'cancel';

/** A write answered 2xx: what the checker looks for in the log, the read models and the webhooks. */
export type AcknowledgedWrite = {
  kind: WriteKind;
  orderId: string;
  /** Its X-Request-Id: the events it appended carry it as their correlation id. */
  requestId: string;
  acknowledgedAt: number;
  /** The payment's reference, for a payment. */
  reference?: string;
};

/** An order the load placed (acknowledged), and every write acknowledged on it, in the order acknowledged. */
export type LoadOrder = {
  id: string;
  customerId: string;
  total: { amount: number; currency: string };
  writes: AcknowledgedWrite[];
  /**
   * A write on it not acknowledged (the client gave up, or a retry was refused): the load stops working on
   * it, and the order may show that write or not.
   */
  unsettled: WriteKind | null;
};

export type LoadOptions = {
  client: CarefulClient;
  customers: LoadActor[];
  staff: LoadActor[];
  /** Each customer's pause after placing an order (and reading it back). */
  placePauseMs: number;
  /** A staff member's pause between two steps of an order. */
  stepPauseMs: number;
  /** Every n-th order of a customer is cancelled by the customer at once; the others go through to delivery. */
  cancelEvery: number;
  /** At most this many orders wait for staff: customers wait beyond it, so the load stays bounded. */
  maxWaiting: number;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What staff do to an order, in turn, once it is placed: confirm, take the payment, ship, deliver. */
const lifecycle: { kind: WriteKind; path: string; body: (order: LoadOrder) => unknown }[] = [
  { kind: 'confirm', path: 'confirm', body: () => undefined },
  {
    kind: 'pay',
    path: 'payments',
    body: (order) => ({ amount: order.total, reference: `pay-${order.id}` }),
  },
  { kind: 'ship', path: 'ship', body: () => ({ carrier: 'Stand Post', trackingNumber: 'T-1' }) },
  { kind: 'deliver', path: 'deliver', body: () => undefined },
];

/**
 * A steady, bounded load of a shop: customers placing orders (each read back with its Consistency-Token),
 * some cancelled at once by their customer, the rest confirmed, paid, shipped and delivered by staff. Every
 * write through the careful client; every acknowledged write kept, per order, for the checker.
 */
export const startLoad = (options: LoadOptions) => {
  const { client } = options;
  const orders: LoadOrder[] = [];
  const waiting: LoadOrder[] = [];
  let stopped = false;

  const settle = (order: LoadOrder, kind: WriteKind, result: WriteResult, reference?: string) => {
    if (!result.acknowledged) {
      order.unsettled = kind;
      return false;
    }
    order.writes.push({
      kind,
      orderId: order.id,
      requestId: result.requestId,
      acknowledgedAt: Date.now(),
      ...(reference ? { reference } : {}),
    });
    return true;
  };

  const customerLoop = async (customer: LoadActor) => {
    for (let placed = 1; !stopped; placed++) {
      while (waiting.length >= options.maxWaiting && !stopped) await sleep(50);
      if (stopped) break;
      const result = await client.write('place order', '/orders', customer.auth, {
        items: [{ productId: '1001', quantity: 1 }],
        shippingAddressId: customer.addressId,
      });
      if (result.acknowledged) {
        const body = result.body as { id: string; total: { amount: number; currency: string } };
        const order: LoadOrder = {
          id: body.id,
          customerId: customer.id,
          total: body.total,
          writes: [],
          unsettled: null,
        };
        settle(order, 'place', result);
        orders.push(order);
        await client.read('read own order', `/orders/${order.id}`, {
          ...customer.auth,
          'Consistency-Token': result.headers!.get('consistency-token')!,
        });
        if (placed % options.cancelEvery === 0) {
          const cancelled = await client.write('cancel', `/orders/${order.id}/cancel`, customer.auth, {
            reason: 'changed my mind',
          });
          settle(order, 'cancel', cancelled);
        } else waiting.push(order);
      }
      await sleep(options.placePauseMs);
    }
  };

  const staffLoop = async (member: LoadActor) => {
    while (!stopped) {
      const order = waiting.shift();
      if (!order) {
        await sleep(50);
        continue;
      }
      for (const step of lifecycle) {
        const body = step.body(order);
        const result = await client.write(step.kind, `/orders/${order.id}/${step.path}`, member.auth, body);
        const reference = step.kind === 'pay' ? (body as { reference: string }).reference : undefined;
        if (!settle(order, step.kind, result, reference)) break;
        if (stopped) break;
        await sleep(options.stepPauseMs);
      }
    }
  };

  const loops = [...options.customers.map(customerLoop), ...options.staff.map(staffLoop)];
  return {
    orders,
    /** Stops placing and moving orders; resolves once every write under way has its final answer. */
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return orders;
    },
  };
};

export type Load = ReturnType<typeof startLoad>;
