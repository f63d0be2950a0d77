import { randomBytes } from 'node:crypto';
import { erasedValue, type KeyStanding, type SealedText } from '../../domain/shared/personal-data.ts';
import type { Logger } from 'pino';
import { createSecretCipher } from '../crypto/secret-cipher.ts';
import type { DataKeyStore } from './data-key-store.ts';
import { openSealedBytes, sealField, sealedInJson, sealedMarker } from './field-cipher.ts';

/** What a sealed field whose owner's key is gone reads as. */
export const erasedText = erasedValue;
const erasedJson = JSON.stringify(erasedText);

/** The owner was erased: nothing of it may be written again (its data would be readable). */
export class OwnerErasedError extends Error {
  readonly kind = 'owner-erased';
}

type CachedKey = {
  /** null: erased, or lost (no key for sealed data). */
  key: Buffer | null;
  /** Where the key stands: `opens` with a key; `erased`, `none` (lost) or `unreadable` without. */
  standing: KeyStanding;
  expiresAt: number;
  /**
   * Fields opened with this key, from their JSON form to the plaintext's, so a hot order's are decrypted
   * (and serialized) once per period.
   */
  opened: Map<string, string>;
  /**
   * Fields sealed with this key, by plaintext: a customer's orders to one stored address seal it once per
   * period (the same sealed bytes in each, which tells no more than the customer id beside them).
   */
  sealed: Map<string, SealedText>;
};

export type PersonalDataKeyring = ReturnType<typeof createPersonalDataKeyring>;

/**
 * Seals personal fields under their owner's data key and opens them on the way out. Data keys are random
 * 256-bit keys, sealed under the key-encryption key in the DataKeyStore. Keys (and the fields opened with
 * them) are cached in memory, at most `cacheSize` owners for `cacheTtlMs` each: an erasure in this process
 * takes effect at once, one in another process (the admin CLI, another service) within `cacheTtlMs`.
 *
 * A sealed field whose key is gone reads as "[erased]": never an error. A key missing without an erasure
 * (a lost key) reads the same, and is logged as an error, once per cache period per owner.
 */
export const createPersonalDataKeyring = ({
  store,
  keyEncryptionKey,
  previousKeyEncryptionKeys = [],
  logger,
  now = () => Date.now(),
  cacheSize = 10_000,
  cacheTtlMs = 5_000,
  maxOpenedPerOwner = 256,
}: {
  store: DataKeyStore;
  keyEncryptionKey: Buffer;
  /** Keys that sealed data keys before a rotation: data keys still sealed under them open too. */
  previousKeyEncryptionKeys?: readonly Buffer[];
  logger: Pick<Logger, 'error'>;
  now?: () => number;
  cacheSize?: number;
  cacheTtlMs?: number;
  maxOpenedPerOwner?: number;
}) => {
  const kek = createSecretCipher(keyEncryptionKey);
  const previous = previousKeyEncryptionKeys.map(createSecretCipher);
  const cache = new Map<string, CachedKey>();

  const unseal = (sealedKey: string, ownerId: string): Buffer => {
    for (const cipher of [kek, ...previous]) {
      try {
        return Buffer.from(cipher.open(sealedKey, ownerId), 'base64');
      } catch {
        // not sealed under this one: try the next
      }
    }
    throw new Error(`the data key of ${ownerId} opens under no configured key-encryption key`);
  };

  const remember = (
    ownerId: string,
    key: Buffer | null,
    standing: KeyStanding = key ? 'opens' : 'none',
  ): CachedKey => {
    cache.delete(ownerId);
    if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
    const entry = {
      key,
      standing,
      expiresAt: now() + cacheTtlMs,
      opened: new Map<string, string>(),
      sealed: new Map<string, SealedText>(),
    };
    cache.set(ownerId, entry);
    return entry;
  };

  const cached = (ownerId: string): CachedKey | undefined => {
    const entry = cache.get(ownerId);
    if (entry && entry.expiresAt > now()) return entry;
    if (entry) cache.delete(ownerId);
    return undefined;
  };

  /** What was read from the store for the owner, cached; a lost key (null) logged. */
  const rememberStored = (ownerId: string, stored: string | 'erased' | null): CachedKey => {
    // Erased here while the key was being fetched: the erasure wins over the key fetched before it.
    const erasedMeanwhile = cached(ownerId);
    if (erasedMeanwhile?.standing === 'erased') return erasedMeanwhile;
    if (stored === null) {
      logger.error(
        { ownerId },
        'personal data sealed under a data key that does not exist and was never erased: the key is lost; it reads as [erased]',
      );
      return remember(ownerId, null);
    }
    if (stored === 'erased') return remember(ownerId, null, 'erased');
    try {
      return remember(ownerId, unseal(stored, ownerId));
    } catch (error) {
      logger.error({ ownerId, err: error }, 'a data key does not open: its personal data reads as [erased]');
      return remember(ownerId, null, 'unreadable');
    }
  };

  /** The owner's key for reading: null when erased or lost (the latter logged). */
  const keyForReading = async (ownerId: string): Promise<CachedKey> =>
    cached(ownerId) ?? rememberStored(ownerId, await store.get(ownerId));

  /** The owner's key for writing, created on first use; throws OwnerErasedError after erasure. */
  const keyForWriting = async (ownerId: string): Promise<CachedKey & { key: Buffer }> => {
    const hit = cached(ownerId);
    if (hit?.key) return hit as CachedKey & { key: Buffer };
    let stored = await store.get(ownerId);
    if (stored === null) {
      const fresh = randomBytes(32);
      stored = await store.create(
        ownerId,
        kek.seal(fresh.toString('base64'), ownerId),
        new Date(now()).toISOString(),
      );
    }
    if (stored === 'erased')
      throw new OwnerErasedError(`${ownerId} was erased: its personal data is not kept`);
    return remember(ownerId, unseal(stored, ownerId)) as CachedKey & { key: Buffer };
  };

  const sealWith = (entry: CachedKey & { key: Buffer }, ownerId: string, plaintext: string): SealedText => {
    const known = entry.sealed.get(plaintext);
    if (known !== undefined) return known;
    const field = sealField(entry.key, ownerId, plaintext);
    if (entry.sealed.size >= maxOpenedPerOwner) entry.sealed.clear();
    entry.sealed.set(plaintext, field);
    if (entry.opened.size >= maxOpenedPerOwner) entry.opened.clear();
    entry.opened.set(JSON.stringify(field), JSON.stringify(plaintext));
    return field;
  };

  /** The plaintext of a sealed field as a JSON string (or "[erased]"); `token` is its JSON form (the object). */
  const openWith = (entry: CachedKey, ownerId: string, token: string, sealedBytes: string): string => {
    if (entry.key === null) return erasedJson;
    const known = entry.opened.get(token);
    if (known !== undefined) return known;
    let plaintext: string;
    try {
      plaintext = openSealedBytes(entry.key, ownerId, sealedBytes);
    } catch {
      logger.error(
        { ownerId },
        'a sealed personal field does not open with its data key: it reads as [erased]',
      );
      return erasedJson;
    }
    const json = JSON.stringify(plaintext);
    if (entry.opened.size >= maxOpenedPerOwner) entry.opened.clear();
    entry.opened.set(token, json);
    return json;
  };

  // Every string at a path is sealed, whatever it says; what is sealed already (an object) is kept.
  const sealPath = (
    value: unknown,
    path: readonly string[],
    seal: (plain: string) => SealedText,
  ): unknown => {
    if (path.length === 0) return typeof value === 'string' ? seal(value) : value;
    if (value === null || typeof value !== 'object') return value;
    const [head, ...rest] = path;
    const record = value as Record<string, unknown>;
    if (!Object.hasOwn(record, head!)) return value;
    return { ...record, [head!]: sealPath(record[head!], rest, seal) };
  };

  /**
   * JSON text with every sealed field opened: the plaintext, or "[erased]". Text without any is returned
   * as it is, at the cost of one substring search.
   */
  const reveal = async (json: string): Promise<string> => {
    if (!json.includes(sealedMarker)) return json;
    // One pass when every owner's key is cached (the hot path); else fetch the missing keys, then again.
    let complete = true;
    const opened = json.replace(sealedInJson, (token, ownerId: string, sealedBytes: string) => {
      const entry = cached(ownerId);
      if (entry) return openWith(entry, ownerId, token, sealedBytes);
      complete = false;
      return token;
    });
    if (complete) return opened;
    const keys = new Map<string, CachedKey>();
    for (const match of json.matchAll(sealedInJson)) {
      if (!keys.has(match[1]!)) keys.set(match[1]!, await keyForReading(match[1]!));
    }
    return json.replace(sealedInJson, (token, ownerId: string, sealedBytes: string) =>
      openWith(keys.get(ownerId)!, ownerId, token, sealedBytes),
    );
  };

  /** Where the owner's key stands (KeyStanding), opening nothing: part of a version of what they own. */
  const standingOf = async (ownerId: string): Promise<KeyStanding> => {
    const hit = cached(ownerId);
    if (hit) return hit.standing;
    const stored = await store.get(ownerId);
    // No key at all: not cached, so that a sealed field met later still logs a lost key.
    if (stored === null) return 'none';
    return rememberStored(ownerId, stored).standing;
  };

  return {
    /** Seals one field under the owner's key (created on first use). */
    async seal(ownerId: string, plaintext: string): Promise<SealedText> {
      return sealWith(await keyForWriting(ownerId), ownerId, plaintext);
    },

    /** A copy of `data` with the strings at `paths` sealed under the owner's key (sealed objects kept). */
    async sealFields<T>(ownerId: string, data: T, paths: readonly (readonly string[])[]): Promise<T> {
      // Nothing to seal (a cancellation without a reason): no key is needed, nor refused after an erasure.
      let plain = false;
      const noteText = (text: string): SealedText => {
        plain = true;
        return { sealed: text };
      };
      for (const path of paths) sealPath(data, path, noteText);
      if (!plain) return data;
      const key = await keyForWriting(ownerId);
      let sealed: unknown = data;
      for (const path of paths) sealed = sealPath(sealed, path, (plain) => sealWith(key, ownerId, plain));
      return sealed as T;
    },

    reveal,

    /**
     * What this process holds of the owner's key now: an object that stays the same while the key stays
     * cached (at most `cacheTtlMs`), and changes when it is fetched again or erased here; undefined when
     * nothing is cached. What was opened under one stamp may be kept as long as the stamp is current.
     */
    keyStamp: (ownerId: string): object | undefined => cached(ownerId),

    standingOf,

    /**
     * JSON text of what one owner owns, its sealed fields opened, and where the owner's key stood when they
     * were: the two agree, also when an erasure (here or in another process) came while it was opened,
     * so a version made from the standing never stands for other bytes.
     */
    async revealOwned(ownerId: string, json: string): Promise<{ json: string; standing: KeyStanding }> {
      let before = await standingOf(ownerId);
      for (let attempt = 1; ; attempt++) {
        const opened = await reveal(json);
        const after = await standingOf(ownerId);
        // A key changes standing once (erased), or when its cache entry is fetched again: a third time is
        // beyond what can happen.
        if (after === before || attempt === 3) return { json: opened, standing: after };
        before = after;
      }
    },

    /** Whether some sealed field of this JSON text reads "[erased]": an owner of one has no key any more. */
    async erasedIn(json: string): Promise<boolean> {
      if (!json.includes(sealedMarker)) return false;
      const owners = new Set([...json.matchAll(sealedInJson)].map((match) => match[1]!));
      for (const ownerId of owners) if ((await keyForReading(ownerId)).key === null) return true;
      return false;
    },

    /** A value with every sealed field opened (through its JSON form). */
    async revealValue<T>(value: T): Promise<T> {
      return JSON.parse(await reveal(JSON.stringify(value))) as T;
    },

    /** Deletes the owner's key for good; false when it was erased already. This process forgets it at once. */
    async erase(ownerId: string, at: string): Promise<boolean> {
      const erased = await store.erase(ownerId, at);
      remember(ownerId, null, 'erased');
      return erased;
    },

    /** Forgets what this process cached of the owner (told of an erasure elsewhere). */
    forget(ownerId: string): void {
      cache.delete(ownerId);
    },
  };
};
