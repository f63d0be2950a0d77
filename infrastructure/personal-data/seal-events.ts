import type { PersonalDataClassification, PersonalDataOf } from '../../domain/shared/personal-data.ts';
import type { PersonalDataKeyring } from './keyring.ts';

/**
 * The step before the codec's encode: an event with the personal fields its type's classification names
 * sealed under their owner's key. Events of types that carry no personal data pass unchanged.
 */
export const eventSealer =
  <Events extends { type: string; data: unknown }>(
    classification: PersonalDataClassification<Events>,
    keyring: Pick<PersonalDataKeyring, 'sealFields'>,
  ) =>
  async (event: Events): Promise<Events> => {
    const personal = (classification as Record<string, PersonalDataOf<unknown> | undefined>)[event.type];
    if (!personal) return event;
    const data = await keyring.sealFields(personal.owner(event.data), event.data, personal.fields);
    return { ...event, data };
  };
