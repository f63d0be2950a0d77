import type { ApiUser } from './api-specification.ts';
import { anAddress, type OrderBody } from './orders.ts';

/**
 * An order `user` places through the API (POST /orders, at an address it adds first), as a client would,
 * over the API driver: the command's answer. Fails unless the order is created.
 */
export const placeOrderAs = async (
  user: ApiUser,
  items: { productId: string; quantity: number }[] = [{ productId: '1001', quantity: 2 }],
) => {
  const address = await user.post('/users/me/addresses', anAddress).send();
  if (address.status !== 201) throw new Error(`address: ${address.status} ${address.text}`);
  const shippingAddressId = address.json<{ id: string }>().id;
  const response = await user.post('/orders', { items, shippingAddressId }).send();
  if (response.status !== 201) throw new Error(`place order: ${response.status} ${response.text}`);
  return {
    order: response.json<OrderBody>(),
    etag: response.headers.get('etag')!,
    consistencyToken: response.headers.get('consistency-token')!,
  };
};
