import type { Response } from 'express';
import { principalOf } from '../infrastructure/auth/authenticate.ts';
import type { EventMetadata } from '../infrastructure/event-store/event-store.ts';
import { requestIdOf } from '../infrastructure/http/request-id.ts';

/** Who acted, in answer to which request, and when: what every event a command appends records. */
export const eventMetadataOf = (response: Response, occurredAt: string): EventMetadata => {
  const { userId, roles } = principalOf(response);
  const requestId = requestIdOf(response);
  return { actor: { userId, roles }, correlationId: requestId, causationId: requestId, occurredAt };
};
