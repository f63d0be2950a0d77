import type { CarefulClient } from './careful-client.ts';
import type { LoadActor } from './load.ts';
import type { ReceiverClient } from './receiver-client.ts';
import type { Receipt, Subscriber } from './webhook-check.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const createdWebhookOf = (receipt: Receipt, orderId: string) => {
  try {
    const body = JSON.parse(receipt.body) as { type: string; data: { id?: string } };
    return body.type === 'order.created' && body.data.id === orderId;
  } catch {
    return false;
  }
};

/**
 * A new write made readable and delivered: an order placed (retried with its key until acknowledged), read
 * back with its Consistency-Token until answered 200, and its order.created webhook received by every
 * subscriber. Once it resolves, the read models hold every write acknowledged before it (positions follow
 * commits). Rejects past `timeoutMs`.
 */
export const probeWrite = async (
  {
    client,
    customer,
    receiver,
    subscribers,
  }: {
    client: CarefulClient;
    customer: LoadActor;
    receiver: ReceiverClient;
    subscribers: readonly Subscriber[];
  },
  timeoutMs: number,
): Promise<string> => {
  const deadline = performance.now() + timeoutMs;
  const late = (what: string) => {
    if (performance.now() > deadline) throw new Error(`heal probe: ${what} after ${timeoutMs} ms`);
  };
  let placed = await client.write('heal probe', '/orders', customer.auth, {
    items: [{ productId: '1001', quantity: 1 }],
    shippingAddressId: customer.addressId,
  });
  while (!placed.acknowledged) {
    late(`no order acknowledged (last ${placed.status})`);
    placed = await client.write('heal probe', '/orders', customer.auth, {
      items: [{ productId: '1001', quantity: 1 }],
      shippingAddressId: customer.addressId,
    });
  }
  const orderId = (placed.body as { id: string }).id;
  const token = placed.headers!.get('consistency-token')!;
  for (;;) {
    const read = await client.read('heal probe read', `/orders/${orderId}`, {
      ...customer.auth,
      'Consistency-Token': token,
    });
    if (read.status === 200) break;
    late(`order not readable (last ${read.status})`);
    await sleep(100);
  }
  for (;;) {
    const receipts = await receiver.all();
    const arrived = subscribers.every(({ path }) =>
      receipts.some((receipt) => receipt.path === path && createdWebhookOf(receipt, orderId)),
    );
    if (arrived) return orderId;
    late('webhook not delivered to every subscriber');
    await sleep(200);
  }
};
