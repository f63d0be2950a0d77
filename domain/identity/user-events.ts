import { z } from 'zod';
import type { EventCatalog } from '../shared/event-versions.ts';

// The facts in a user's stream (`user-{id}`), with the schema of every version each has had. Users live in
// the read store (identity/); the log records only what must outlast them: that a user's personal data was
// erased, who asked and when, and nothing about the person.

const personalDataErasedV1 = z.strictObject({ userId: z.string(), erasedAt: z.iso.datetime() });

export type PersonalDataErased = {
  type: 'PersonalDataErased';
  data: z.infer<typeof personalDataErasedV1>;
};

export type UserEvent = PersonalDataErased;

/** Every user event, every version: what the event codec writes and reads them with. */
export const userEvents: EventCatalog<UserEvent> = {
  PersonalDataErased: { schemas: [personalDataErasedV1], upcast: [] },
};
