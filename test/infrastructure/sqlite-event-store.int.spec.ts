import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { NO_STREAM, type EventStore } from '../../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import { eventStoreContract } from '../contracts/event-store.contract.ts';
import { anEvent, collectUntil, events, uniqueStreamId } from '../support/events.ts';

const dir = mkdtempSync(join(tmpdir(), 'event-store-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

eventStoreContract('node:sqlite file', async () =>
  createSqliteEventStore({ path: join(dir, 'events.sqlite') }),
);
// What the kernel's unit tests run on (test/event-sourcing): the same adapter, in memory.
eventStoreContract('node:sqlite in memory', async () => createSqliteEventStore({ path: ':memory:' }));

describe('node:sqlite log: followers in the appending process read its last appends from memory', () => {
  const fileIn = () => join(mkdtempSync(join(dir, 'recent-')), 'events.sqlite');
  const stores: EventStore[] = [];
  const open = (path: string, options: { recentEventsKept?: number } = {}) => {
    const store = createSqliteEventStore({ path, pollIntervalMs: 20, ...options });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  it('hands out exactly what a reader of the file gets: same events, same positions, JSON-only data', async () => {
    const path = fileIn();
    const writer = open(path);
    const stream = uniqueStreamId();
    // Requested in one turn: one write transaction of three appends, one of them a conflict.
    await Promise.allSettled([
      writer.appendToStream(stream, events(3), { expectedRevision: NO_STREAM }),
      writer.appendToStream(uniqueStreamId(), [anEvent('Other', { dropped: undefined, kept: 1 })], {
        expectedRevision: NO_STREAM,
      }),
      writer.appendToStream(stream, events(1), { expectedRevision: NO_STREAM }),
    ]);
    await writer.appendToStream(stream, events(20), { expectedRevision: 2 });

    const fromMemory = await writer.readAll({ maxCount: 100 });
    const fromFile = await open(path).readAll({ maxCount: 100 });
    expect(fromMemory).toHaveLength(24);
    expect(fromMemory).toEqual(fromFile);
    expect(fromMemory.map((event) => event.position)).toEqual(fromFile.map((event) => event.position));
    expect(fromMemory.find((event) => event.type === 'Other')?.data).toStrictEqual({ kept: 1 });
  });

  it('keeps them frozen: a follower cannot change what the others read', async () => {
    const writer = open(fileIn());
    await writer.appendToStream(uniqueStreamId(), [anEvent('Placed', { items: [{ quantity: 1 }] })], {
      expectedRevision: NO_STREAM,
    });
    const [event] = await writer.readAll({ maxCount: 1 });
    expect(() => {
      (event!.data['items'] as { quantity: number }[])[0]!.quantity = 2;
    }).toThrow(TypeError);
    expect((await writer.readAll({ maxCount: 1 }))[0]!.data).toEqual({ items: [{ quantity: 1 }] });
  });

  it('misses nothing another process appended to the same file between its own appends', async () => {
    const path = fileIn();
    const writer = open(path);
    const other = open(path);
    const followed = collectUntil(
      (signal) => writer.subscribeToAll({ signal }),
      (seen) => seen.length === 9,
    );
    const appendAs = async (store: EventStore, count: number, label: string) => {
      for (let n = 0; n < count; n++)
        await store.appendToStream(uniqueStreamId(), [anEvent(label, { n })], {
          expectedRevision: NO_STREAM,
        });
    };
    await appendAs(writer, 2, 'Mine');
    await appendAs(other, 3, 'Theirs');
    await appendAs(writer, 2, 'Mine');
    await appendAs(other, 1, 'Theirs');
    await appendAs(writer, 1, 'Mine');

    const expected = ['Mine', 'Mine', 'Theirs', 'Theirs', 'Theirs', 'Mine', 'Mine', 'Theirs', 'Mine'];
    expect((await writer.readAll({ maxCount: 100 })).map((event) => event.type)).toEqual(expected);
    const seen = await followed;
    expect(seen.map((event) => event.type)).toEqual(expected);
    expect(seen.map((event) => Number(event.position))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('reads what it no longer keeps from the file', async () => {
    const writer = open(fileIn(), { recentEventsKept: 4 });
    for (let n = 0; n < 5; n++)
      await writer.appendToStream(uniqueStreamId(), events(3), { expectedRevision: NO_STREAM });
    const all = await writer.readAll({ maxCount: 100 });
    expect(all.map((event) => Number(event.position))).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect((await writer.readAll({ after: 2n, maxCount: 3 })).map((event) => event.position)).toEqual([
      3n,
      4n,
      5n,
    ]);
  });
});

describe('node:sqlite log: an event read from the file, its metadata decoded on first read', () => {
  it('is a plain value all the same: spread, JSON and structuredClone carry its metadata', async () => {
    const path = join(mkdtempSync(join(dir, 'lazy-')), 'events.sqlite');
    const writer = createSqliteEventStore({ path });
    const appended = anEvent('Placed', { n: 1 });
    await writer.appendToStream(uniqueStreamId(), [appended], { expectedRevision: NO_STREAM });
    // Another store on the file has no memory of the append: it decodes the row.
    const reader = createSqliteEventStore({ path });
    const [event] = await reader.readAll({ maxCount: 1 });
    await Promise.all([writer.close(), reader.close()]);

    expect({ ...event! }.metadata).toEqual(appended.metadata);
    expect(
      JSON.parse(
        JSON.stringify(event, (_, value: unknown) => (typeof value === 'bigint' ? `${value}` : value)),
      ).metadata,
    ).toEqual(appended.metadata);
    expect(structuredClone(event!).metadata).toEqual(appended.metadata);
    expect(event!.metadata).toBe(event!.metadata);
  });
});
