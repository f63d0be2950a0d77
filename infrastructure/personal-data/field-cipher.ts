import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { isSealedText, type SealedText } from '../../domain/shared/personal-data.ts';

/**
 * One personal field sealed under its owner's data key (AES-256-GCM, a random 96-bit IV each time; the
 * owner's id is the additional authenticated data, so a sealed field moved onto another owner does not
 * open). The sealed form is an object, `{"sealed": "pd1.<ownerId>.<base64url of iv, ciphertext, tag>"}`
 * (domain/shared/personal-data.ts, sealedText), never a bare string: a client's text, always a string, is
 * never taken for one.
 */
const ownerIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

/** What every JSON text holding a sealed field contains: the quick test before the full search. */
export const sealedMarker = '{"sealed":"pd1.';

/**
 * Sealed fields as JSON text carries them: the whole object, with nothing else in it. `{"` is structure in
 * JSON text, never the inside of a string (its quotes are escaped there), so a client's string cannot match.
 * The owner id is group 1, the sealed bytes group 2.
 */
export const sealedInJson = /\{"sealed":"pd1\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{38,})"\}/g;

export const isSealed = isSealedText;

// IVs from the CSPRNG, drawn in bulk: one randomBytes call costs about as much as the encryption itself.
let ivPool = Buffer.alloc(0);
let ivOffset = 0;
const nextIv = (): Buffer => {
  if (ivOffset + 12 > ivPool.length) {
    ivPool = randomBytes(12 * 1024);
    ivOffset = 0;
  }
  ivOffset += 12;
  return ivPool.subarray(ivOffset - 12, ivOffset);
};

export const sealField = (key: Buffer, ownerId: string, plaintext: string): SealedText => {
  if (!ownerIdPattern.test(ownerId)) throw new Error('an owner id is 1 to 64 letters, digits, - or _');
  const iv = nextIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(ownerId));
  const sealed = Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { sealed: `pd1.${ownerId}.${sealed.toString('base64url')}` };
};

/** The plaintext of a sealed field's bytes (group 2 of sealedInJson); throws when they do not open. */
export const openSealedBytes = (key: Buffer, ownerId: string, sealedBytes: string): string => {
  const bytes = Buffer.from(sealedBytes, 'base64url');
  if (bytes.length < 28) throw new Error('too short to be a sealed field');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12))
    .setAAD(Buffer.from(ownerId))
    .setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString(
    'utf8',
  );
};

const legacyTokenInJson = /"(pd1\.([A-Za-z0-9_-]{1,64})\.[A-Za-z0-9_-]{38,})"/g;
const customerIdInJson = /"customerId":"([A-Za-z0-9_-]{1,64})"/g;

/**
 * Migration of JSON text the first personal-data release kept (a stored idempotent answer, a webhook's
 * retry state, a message still on the bus): it held each sealed field as its bare token string. Text that
 * holds a sealed object is of this release and is returned as it is; so is text without a bare token. In
 * the rest, a bare token is read as a sealed field only when it names a customer the same text is about (its
 * `customerId`): every order that release sealed names its customer so, and text naming anyone else is a
 * client's, left as it was sent (no other owner's key is ever tried on it).
 */
export const withLegacyTokensSealed = (json: string): string => {
  if (json.includes(sealedMarker) || !json.includes('"pd1.')) return json;
  const customers = new Set([...json.matchAll(customerIdInJson)].map((match) => match[1]!));
  if (customers.size === 0) return json;
  return json.replace(legacyTokenInJson, (whole, token: string, owner: string) =>
    customers.has(owner) ? `{"sealed":"${token}"}` : whole,
  );
};
