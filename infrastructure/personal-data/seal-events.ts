import {
  legacySealedFields,
  type PersonalDataClassification,
  type PersonalDataOf,
} from '../../domain/shared/personal-data.ts';
import type { PersonalDataKeyring } from './keyring.ts';

type AnyEvent = { type: string; data: unknown };

const personalDataOf = (classification: object, type: string) =>
  Object.hasOwn(classification, type)
    ? (classification as Record<string, PersonalDataOf<unknown> | undefined>)[type]
    : undefined;

/**
 * The step before the codec's encode: an event with the personal fields its type's classification names
 * sealed under their owner's key (read from the event, or from the stream's events before it). Events of
 * types that carry no personal data pass unchanged.
 */
export const eventSealer =
  <Events extends AnyEvent>(
    classification: PersonalDataClassification<Events>,
    keyring: Pick<PersonalDataKeyring, 'sealFields'>,
  ) =>
  async (event: Events, before: readonly AnyEvent[] = []): Promise<Events> => {
    const personal = personalDataOf(classification, event.type);
    if (!personal) return event;
    const data = await keyring.sealFields(personal.owner(event.data, before), event.data, personal.fields);
    return { ...event, data };
  };

/**
 * A stored event's data in the version it was written in, with what the first personal-data release
 * stored as bare tokens read as sealed fields (legacySealedFields): what the surfaces that show events as
 * written (histories, the audit log, exports) open. Later versions, and types without personal data, as
 * they are.
 */
export const storedWithSealedFields = (
  classification: object,
  event: { type: string; data: Record<string, unknown>; version: number },
): Record<string, unknown> => {
  const personal = personalDataOf(classification, event.type);
  if (!personal || event.version >= personal.taggedSince) return event.data;
  let owner: string;
  try {
    owner = personal.owner(event.data, []);
  } catch {
    // Its owner is another event's (a cancellation's): no version before tagging held a token there.
    return event.data;
  }
  return legacySealedFields(event.data, owner, personal.fields);
};
