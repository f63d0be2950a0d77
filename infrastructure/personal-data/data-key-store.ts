/**
 * Where each owner's data key lives, sealed under the key-encryption key (never in the event log). An
 * owner's key is created once (the first writer wins) and deleted by erasure, which is remembered: an
 * erased owner never gets a key again, so nothing written after the erasure is readable either.
 *
 * What every adapter guarantees alike (test/contracts/data-key-store.contract.ts), in this process or
 * another: `create` is atomic (two racing creators both get the one stored key), `erase` deletes the key
 * for every reader at once.
 */
export type DataKeyStore = {
  /** The owner's sealed data key; 'erased' after erasure; null when it never had one. */
  get(ownerId: string): Promise<string | 'erased' | null>;
  /** Stores `sealedKey` unless the owner has a key (or was erased): returns what is stored now. */
  create(ownerId: string, sealedKey: string, at: string): Promise<string | 'erased'>;
  /** Deletes the owner's key and remembers the erasure; false when it was erased already. */
  erase(ownerId: string, at: string): Promise<boolean>;
  /** Every owner with a key, and its sealed key: for re-sealing under a new key-encryption key. */
  list(): Promise<{ ownerId: string; sealedKey: string }[]>;
  /** Replaces the sealed form of a key that still exists (a re-seal); false when it is gone. */
  reseal(ownerId: string, sealedKey: string): Promise<boolean>;
};
