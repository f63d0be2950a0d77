import type { TestService } from './test-service.ts';
import { postJson } from './http.ts';

export type OrderBody = {
  id: string;
  status: string;
  customerId: string;
  items: {
    productId: string;
    productName: string;
    quantity: number;
    unitPrice: { amount: number; currency: string };
  }[];
  total: { amount: number; currency: string };
  shippingAddress: { street: string; city: string; postalCode: string; country: string };
  note: string | null;
  payments: {
    id: string;
    amount: { amount: number; currency: string };
    reference: string;
    receivedAt: string;
  }[];
  cancellationReason: string | null;
  /** Once shipped. */
  shipment?: {
    carrier: string | null;
    trackingNumber: string | null;
    trackingUrl: string | null;
    shippedAt: string;
  };
  createdAt: string;
  updatedAt: string;
};

export const anAddress = { street: '1 Rue de Rivoli', city: 'Paris', postalCode: '75001', country: 'FR' };

/** A signed-in user of the service who can act on orders over HTTP, as a client would. */
export const orderActor = async (
  service: Pick<TestService, 'url' | 'signIn'>,
  roles: Parameters<TestService['signIn']>[0],
) => {
  const user = await service.signIn(roles);
  const url = (path: string) => `${service.url}${path}`;
  return {
    ...user,
    async addAddress(address = anAddress): Promise<string> {
      const response = await postJson(url('/users/me/addresses'), address, user.auth);
      if (response.status !== 201) throw new Error(`address: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { id: string }).id;
    },
    post(path: string, body?: unknown, headers: Record<string, string> = {}) {
      return body === undefined
        ? fetch(url(path), { method: 'POST', headers: { ...user.auth, ...headers } })
        : postJson(url(path), body, { ...user.auth, ...headers });
    },
    get(path: string, headers: Record<string, string> = {}) {
      return fetch(url(path), { headers: { ...user.auth, ...headers } });
    },
    /** Places an order of the given lines at a fresh address; fails the test unless it is created. */
    async placeOrder(
      items: { productId: string; quantity: number }[] = [{ productId: '1001', quantity: 2 }],
    ) {
      const shippingAddressId = await this.addAddress();
      const response = await this.post('/orders', { items, shippingAddressId });
      if (response.status !== 201)
        throw new Error(`place order: ${response.status} ${await response.text()}`);
      return {
        order: (await response.json()) as OrderBody,
        etag: response.headers.get('etag')!,
        consistencyToken: response.headers.get('consistency-token')!,
      };
    },
  };
};

export type OrderActor = Awaited<ReturnType<typeof orderActor>>;
