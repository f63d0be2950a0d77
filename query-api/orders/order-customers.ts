import { z } from 'zod';
import { erasedValue } from '../../domain/shared/personal-data.ts';
import { isErased } from '../../identity/erased-user.ts';
import type { UserStore } from '../../identity/users.ts';

/** The customers a listing of orders names, by id: a person reads a name and an e-mail, not an id. */
export const orderCustomersSchema = z
  .record(
    z.uuid(),
    z.strictObject({
      name: z.string().meta({ description: 'The name the customer signed up with; "[erased]" once erased.' }),
      email: z.string().meta({ description: 'Its e-mail address, lower-cased; "[erased]" once erased.' }),
    }),
  )
  .meta({
    id: 'OrderCustomers',
    description:
      'The customer of each order of `data`, by its `customerId` (personal data: the customer’s name and e-mail, read from the accounts at each request). A customer reads only itself here.',
  });

export type OrderCustomers = z.infer<typeof orderCustomersSchema>;

/**
 * The customers of a page of orders, by id, in one read of the user store; an erased customer reads
 * "[erased]" for both. A customer the store does not hold is left out.
 */
export const customersOf = async (
  users: Pick<UserStore, 'findByIds'>,
  orders: readonly { customerId: string }[],
): Promise<OrderCustomers> => {
  const ids = [...new Set(orders.map((order) => order.customerId))];
  const found = await users.findByIds(ids);
  return Object.fromEntries(
    found.map((user) => [
      user.id,
      isErased(user) ? { name: erasedValue, email: erasedValue } : { name: user.name, email: user.email },
    ]),
  );
};
