import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DataKeyStore } from '../../infrastructure/personal-data/data-key-store.ts';
import { isSealed } from '../../infrastructure/personal-data/field-cipher.ts';
import {
  createPersonalDataKeyring,
  erasedText,
  OwnerErasedError,
} from '../../infrastructure/personal-data/keyring.ts';
import { orderPersonalData } from '../../domain/orders/personal-data.ts';
import { erasedValue } from '../../domain/shared/personal-data.ts';

/** The port's behaviour in memory (its adapters are held to the same by the contract suite). */
const memoryKeyStore = () => {
  const keys = new Map<string, string | 'erased'>();
  let reads = 0;
  const store: DataKeyStore = {
    async get(owner) {
      reads++;
      return keys.get(owner) ?? null;
    },
    async create(owner, sealed) {
      if (!keys.has(owner)) keys.set(owner, sealed);
      return keys.get(owner)!;
    },
    async erase(owner) {
      if (keys.get(owner) === 'erased') return false;
      keys.set(owner, 'erased');
      return true;
    },
    async list() {
      return [...keys]
        .filter(([, key]) => key !== 'erased')
        .map(([ownerId, sealedKey]) => ({ ownerId, sealedKey }));
    },
    async reseal(owner, sealed) {
      if (!keys.has(owner) || keys.get(owner) === 'erased') return false;
      keys.set(owner, sealed);
      return true;
    },
  };
  return { store, keys, reads: () => reads };
};

const errors: unknown[] = [];
const logger = { error: (...args: unknown[]) => void errors.push(args) };

const keyringOver = (
  store: DataKeyStore,
  options: { now?: () => number; kek?: Buffer; previous?: Buffer[] } = {},
) =>
  createPersonalDataKeyring({
    store,
    keyEncryptionKey: options.kek ?? randomBytes(32),
    previousKeyEncryptionKeys: options.previous ?? [],
    logger,
    ...(options.now ? { now: options.now } : {}),
  });

describe('personal data keyring', () => {
  it('seals a field as an object without the plaintext, once per owner and cache period, and opens it', async () => {
    const { store } = memoryKeyStore();
    let clock = 0;
    const keyring = keyringOver(store, { now: () => clock });
    const owner = randomUUID();
    const first = await keyring.seal(owner, 'Quibblestrasse 7');
    expect(isSealed(first)).toBe(true);
    expect(first).not.toContain('Quibble');
    // A customer's orders to one address share its sealed form while it is cached; never another owner's.
    expect(await keyring.seal(owner, 'Quibblestrasse 7')).toBe(first);
    expect((await keyring.seal(randomUUID(), 'Quibblestrasse 7')).sealed).not.toContain(
      first.sealed.slice(-40),
    );
    clock += 5_001;
    expect(await keyring.seal(owner, 'Quibblestrasse 7')).not.toBe(first);
    expect(await keyring.reveal(JSON.stringify({ street: first, city: 'x' }))).toBe(
      JSON.stringify({ street: 'Quibblestrasse 7', city: 'x' }),
    );
  });

  it('reveals text with quotes and non-ASCII as the JSON string it was', async () => {
    const keyring = keyringOver(memoryKeyStore().store);
    const owner = randomUUID();
    const note = 'Ring "twice" – Grüße\n\\ 🙂';
    const revealed = await keyring.revealValue({ note: await keyring.seal(owner, note) });
    expect(revealed).toEqual({ note });
  });

  it('seals the classified fields of OrderPlaced, and only those, once', async () => {
    const keyring = keyringOver(memoryKeyStore().store);
    const customerId = randomUUID();
    const data = {
      orderId: randomUUID(),
      customerId,
      shippingAddress: { street: 'Quibblestrasse 7', city: 'Bern', postalCode: '3000', country: 'CH' },
      note: 'leave at the door',
      total: { amountMinor: 100, currency: 'EUR' },
    };
    const classification = orderPersonalData.OrderPlaced!;
    const sealed = await keyring.sealFields(customerId, data, classification.fields);
    expect(Object.values(sealed.shippingAddress).every(isSealed)).toBe(true);
    expect(isSealed(sealed.note)).toBe(true);
    expect(sealed.orderId).toBe(data.orderId);
    expect(sealed.total).toEqual(data.total);
    expect(await keyring.sealFields(customerId, sealed, classification.fields)).toEqual(sealed);
    expect(await keyring.revealValue(sealed)).toEqual(data);
    const noNote = await keyring.sealFields(customerId, { ...data, note: null }, classification.fields);
    expect(noNote.note).toBeNull();
  });

  it('after erasure every sealed field of the owner reads as [erased], others untouched; no new key', async () => {
    const { store } = memoryKeyStore();
    const keyring = keyringOver(store);
    const erased = randomUUID();
    const kept = randomUUID();
    const text = JSON.stringify({
      a: await keyring.seal(erased, 'gone'),
      b: await keyring.seal(kept, 'kept'),
    });
    expect(await keyring.erase(erased, new Date().toISOString())).toBe(true);
    expect(await keyring.erase(erased, new Date().toISOString())).toBe(false);
    expect(JSON.parse(await keyring.reveal(text))).toEqual({ a: erasedValue, b: 'kept' });
    expect(erasedText).toBe(erasedValue);
    await expect(keyring.seal(erased, 'again')).rejects.toBeInstanceOf(OwnerErasedError);
  });

  it('an erasure in another process reaches this one once its cache period is over', async () => {
    const { store } = memoryKeyStore();
    let clock = 0;
    const here = keyringOver(store, { now: () => clock });
    const owner = randomUUID();
    const text = JSON.stringify({ street: await here.seal(owner, 'Quibblestrasse 7') });
    expect(await here.reveal(text)).toContain('Quibble');
    await store.erase(owner, new Date().toISOString());
    clock += 5_001;
    expect(JSON.parse(await here.reveal(text))).toEqual({ street: erasedValue });
  });

  it('tells where an owner’s key stands, opening nothing, and the same before and after a read', async () => {
    const { store, keys } = memoryKeyStore();
    const kek = randomBytes(32);
    const keyring = keyringOver(store, { kek });
    const [kept, erased, lost] = [randomUUID(), randomUUID(), randomUUID()];
    const text = JSON.stringify({
      kept: await keyring.seal(kept, 'kept'),
      erased: await keyring.seal(erased, 'gone'),
      lost: await keyring.seal(lost, 'lost'),
    });
    await keyring.erase(erased, new Date().toISOString());
    keys.delete(lost);
    const fresh = keyringOver(store, { kek });
    errors.length = 0;
    const standings = async () => Promise.all([kept, erased, lost].map((owner) => fresh.standingOf(owner)));
    expect(await standings()).toEqual(['opens', 'erased', 'none']);
    // Asking logs nothing (a key never made is no loss); the read that meets a lost key's field does.
    expect(errors).toEqual([]);
    await fresh.reveal(text);
    expect(JSON.stringify(errors)).toContain('lost');
    expect(await standings()).toEqual(['opens', 'erased', 'none']);
    expect(await fresh.standingOf(randomUUID())).toBe('none');
  });

  it('opens what one owner owns with the standing its bytes were opened under, also when an erasure comes meanwhile', async () => {
    const { store } = memoryKeyStore();
    const kek = randomBytes(32);
    const keyring = keyringOver(store, { kek });
    const [owner, other] = [randomUUID(), randomUUID()];
    const text = JSON.stringify({
      street: await keyring.seal(owner, 'Quibblestrasse 7'),
      other: await keyring.seal(other, 'elsewhere'),
    });
    expect(await keyring.revealOwned(owner, text)).toEqual({
      json: JSON.stringify({ street: 'Quibblestrasse 7', other: 'elsewhere' }),
      standing: 'opens',
    });
    // A keyring whose first read of the other owner's key lets an erasure of the owner's in: the owner's
    // key was taken already, so that read opens the street; the standing moved, so it is read again.
    let erasing = true;
    const meanwhile = keyringOver(
      {
        ...store,
        async get(ownerId) {
          if (ownerId === other && erasing) {
            erasing = false;
            await meanwhile.erase(owner, new Date().toISOString());
          }
          return store.get(ownerId);
        },
      },
      { kek },
    );
    await meanwhile.standingOf(owner);
    expect(await meanwhile.revealOwned(owner, text)).toEqual({
      json: JSON.stringify({ street: erasedValue, other: 'elsewhere' }),
      standing: 'erased',
    });
  });

  it('a lost key (never erased) reads as [erased], not an error, and is logged', async () => {
    const { store, keys } = memoryKeyStore();
    const keyring = keyringOver(store);
    const owner = randomUUID();
    const text = JSON.stringify({ street: await keyring.seal(owner, 'Quibblestrasse 7') });
    keys.delete(owner);
    const elsewhere = keyringOver(store);
    errors.length = 0;
    expect(JSON.parse(await elsewhere.reveal(text))).toEqual({ street: erasedValue });
    expect(JSON.stringify(errors)).toContain('lost');
    expect(JSON.stringify(errors)).not.toContain('Quibble');
  });

  it('a tampered field reads as [erased]; so does one moved onto another owner', async () => {
    const keyring = keyringOver(memoryKeyStore().store);
    const owner = randomUUID();
    const other = randomUUID();
    await keyring.seal(other, 'other');
    const sealed = await keyring.seal(owner, 'Quibblestrasse 7');
    const tampered = { sealed: sealed.sealed.slice(0, -3) + (sealed.sealed.endsWith('AAA') ? 'BBB' : 'AAA') };
    const moved = { sealed: sealed.sealed.replace(owner, other) };
    expect(JSON.parse(await keyring.reveal(JSON.stringify([tampered, moved])))).toEqual([
      erasedValue,
      erasedValue,
    ]);
  });

  it('caches keys: a hot owner is read from the store once per cache period', async () => {
    const memory = memoryKeyStore();
    const keyring = keyringOver(memory.store);
    const owner = randomUUID();
    const text = JSON.stringify({ street: await keyring.seal(owner, 'x') });
    const before = memory.reads();
    for (let i = 0; i < 50; i++) await keyring.reveal(text);
    expect(memory.reads()).toBe(before);
  });

  it('data keys sealed under a previous key-encryption key still open (rotation)', async () => {
    const { store } = memoryKeyStore();
    const oldKek = randomBytes(32);
    const owner = randomUUID();
    const text = JSON.stringify({
      street: await keyringOver(store, { kek: oldKek }).seal(owner, 'Quibblestrasse 7'),
    });
    const rotated = keyringOver(store, { previous: [oldKek] });
    expect(await rotated.reveal(text)).toContain('Quibblestrasse 7');
    const withoutOld = keyringOver(store);
    expect(JSON.parse(await withoutOld.reveal(text))).toEqual({ street: erasedValue });
  });

  it('leaves text without sealed fields as it is, and a sealed-looking string that is not a whole value', async () => {
    const keyring = keyringOver(memoryKeyStore().store);
    const text = JSON.stringify({ note: 'see pd1.abc.def for details' });
    expect(await keyring.reveal(text)).toBe(text);
  });

  it("never takes a client's string for a sealed field, whatever it says: another owner's key is not tried", async () => {
    const memory = memoryKeyStore();
    const keyring = keyringOver(memory.store);
    const victim = randomUUID();
    const real = await keyring.seal(victim, 'Quibblestrasse 7');
    errors.length = 0;
    const texts = [
      // A token as a string, naming an owner with a key, one without, and one erased.
      real.sealed,
      `pd1.${randomUUID()}.${'A'.repeat(60)}`,
      // The object's JSON as a string, and inside a longer string.
      JSON.stringify(real),
      `x${JSON.stringify(real)}y`,
      `{"sealed":"${real.sealed}"}`,
    ];
    const before = memory.reads();
    expect(JSON.parse(await keyring.reveal(JSON.stringify({ notes: texts })))).toEqual({ notes: texts });
    expect(errors).toEqual([]);
    expect(memory.reads()).toBe(before);
  });

  it('an object with more than the sealed member is no sealed field', async () => {
    const keyring = keyringOver(memoryKeyStore().store);
    const owner = randomUUID();
    const real = await keyring.seal(owner, 'Quibblestrasse 7');
    const text = JSON.stringify({ a: { ...real, other: 1 }, b: { other: 1, ...real } });
    expect(await keyring.reveal(text)).toBe(text);
  });
});
