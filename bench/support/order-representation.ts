import { jsonRepresentation, type Representation } from '../../infrastructure/http/representation.ts';
import type { OrderDetails } from '../../domain/orders/order-details.ts';
import { currentOrderResource } from '../../domain/orders/order-resource.ts';

/**
 * An order as the service sends it to its customer (the benchmarks read as the customer who placed it):
 * the same bytes, `actions` included, strong ETag and Last-Modified as its routes.
 */
export const orderRepresentation = (details: OrderDetails): Representation =>
  jsonRepresentation(currentOrderResource(details, { userId: details.customerId, roles: ['customer'] }), {
    lastModified: details.updatedAt,
  });
