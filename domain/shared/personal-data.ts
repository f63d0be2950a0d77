// The shape of a feature's classification of personal data (see domain/orders/personal-data.ts).

/** What a field whose owner's key is gone reads as, everywhere. */
export const erasedValue = '[erased]';

/** A path into an event's data: the keys from the top, leading to a string (or null: nothing to seal). */
export type PersonalFieldPath = readonly string[];

/** Of one event type: whose data it is (the data key it is sealed under), and which fields are personal. */
export type PersonalDataOf<Data> = {
  owner: (data: Data) => string;
  fields: readonly PersonalFieldPath[];
};

/** Of every event type of a catalogue that carries personal data; the types not listed carry none. */
export type PersonalDataClassification<Events extends { type: string; data: unknown }> = {
  [Type in Events['type']]?: PersonalDataOf<Extract<Events, { type: Type }>['data']>;
};
