import { z } from 'zod';

// The shape of a feature's classification of personal data (see domain/orders/personal-data.ts).

/** What a field whose owner's key is gone reads as, everywhere. */
export const erasedValue = '[erased]';

/**
 * Where an owner's personal-data key stands, which decides how their sealed fields read: `opens` (the
 * plaintext), `erased` (for good), `none` (never made: nothing of theirs is sealed, or it was lost) or
 * `unreadable` (it opens under no configured key-encryption key); the last three read as "[erased]".
 */
export type KeyStanding = 'opens' | 'erased' | 'none' | 'unreadable';

/** A path into an event's data: the keys from the top, leading to a string (or null: nothing to seal). */
export type PersonalFieldPath = readonly string[];

/**
 * Of one event type: whose data it is (the data key it is sealed under), and which fields are personal. The
 * owner is read from the event, or from the events of its stream before it (a cancellation's reason is the
 * customer's who placed the order, whoever cancels).
 */
export type PersonalDataOf<Data> = {
  owner: (data: Data, before: readonly { type: string; data: unknown }[]) => string;
  fields: readonly PersonalFieldPath[];
  /**
   * The first version of the event type that holds sealed fields as objects (sealedText): in earlier
   * versions a classified field is a plain string, or (the first personal-data release) a bare token.
   */
  taggedSince: number;
};

/** Of every event type of a catalogue that carries personal data; the types not listed carry none. */
export type PersonalDataClassification<Events extends { type: string; data: unknown }> = {
  [Type in Events['type']]?: PersonalDataOf<Extract<Events, { type: Type }>['data']>;
};

// How a sealed field is held wherever it is stored or sent between processes: an object with one member,
// `sealed`, never a bare string. A client's text is always a string (no request schema takes an object
// where personal text goes), and in JSON text `{"sealed":` can only be structure, never the inside of a
// string (whose quotes are escaped): so text a client sends is never taken for a sealed field, whatever it
// says. The token inside is `pd1.<owner id>.<base64url of IV, ciphertext, GCM tag>`.

const ownerId = '[A-Za-z0-9_-]{1,64}';
const sealedBytes = '[A-Za-z0-9_-]{38,}';
const tokenPattern = new RegExp(`^pd1\\.(${ownerId})\\.(${sealedBytes})$`);

/** A sealed field: its owner's id and the sealed bytes, in one token. */
export const sealedText = z.strictObject({ sealed: z.string().regex(tokenPattern) });
export type SealedText = z.infer<typeof sealedText>;

/** A personal text field: the plaintext (before the command handler seals it, or in an old event), or sealed. */
export const personalText = z.union([z.string(), sealedText]);
export type PersonalText = z.infer<typeof personalText>;

export const isSealedText = (value: unknown): value is SealedText =>
  typeof value === 'object' &&
  value !== null &&
  Object.keys(value).length === 1 &&
  typeof (value as { sealed?: unknown }).sealed === 'string' &&
  tokenPattern.test((value as { sealed: string }).sealed);

/** The owner of a sealed field's token; undefined when it is no token. */
export const ownerOfToken = (token: string): string | undefined => tokenPattern.exec(token)?.[1];

/**
 * Migration of what the first personal-data release stored: it held a sealed field as its bare token string,
 * where a client's text of that shape was kept as sent. A bare string is taken for a sealed field only where
 * that release sealed (a classified field), and only when it names that field's owner: text naming another
 * owner is a client's text (it never opens, and no other owner's key is tried on it).
 */
export const fromLegacyStored = (value: string, owner: string): PersonalText =>
  ownerOfToken(value) === owner ? { sealed: value } : value;

/**
 * The classified fields of `data` in their stored legacy form (bare token strings) as sealed fields: what an
 * upcaster, or a reader of a stored event in the version it was written in, gives.
 */
export const legacySealedFields = <T>(data: T, owner: string, paths: readonly PersonalFieldPath[]): T => {
  const at = (value: unknown, path: readonly string[]): unknown => {
    if (path.length === 0) return typeof value === 'string' ? fromLegacyStored(value, owner) : value;
    if (value === null || typeof value !== 'object') return value;
    const [head, ...rest] = path;
    const record = value as Record<string, unknown>;
    if (!Object.hasOwn(record, head!)) return value;
    return { ...record, [head!]: at(record[head!], rest) };
  };
  return paths.reduce<unknown>((sealed, path) => at(sealed, path), data) as T;
};

/**
 * The paths of an event schema's personal fields: every field whose schema is `personalText` (nullable or
 * optional or not), at any depth of nested objects. The event schema is where a field is said to be
 * personal; the classification of its feature reads it from there.
 */
export const personalPathsIn = (schema: z.ZodType, path: readonly string[] = []): PersonalFieldPath[] => {
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodNullable || inner instanceof z.ZodOptional)
    inner = inner.unwrap() as z.ZodType;
  if (inner === personalText) return [path];
  if (inner instanceof z.ZodObject) {
    return Object.entries(inner.shape).flatMap(([key, field]) =>
      personalPathsIn(field as z.ZodType, [...path, key]),
    );
  }
  return [];
};
