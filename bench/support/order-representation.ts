import { jsonRepresentation, type Representation } from '../../infrastructure/http/representation.ts';
import type { OrderDetails } from '../../domain/orders/order-details.ts';
import { orderResource } from '../../domain/orders/order-resource.ts';

/** An order as the service sends it: the same bytes, strong ETag and Last-Modified as its routes. */
export const orderRepresentation = (details: OrderDetails): Representation =>
  jsonRepresentation(orderResource(details), { lastModified: details.updatedAt });
