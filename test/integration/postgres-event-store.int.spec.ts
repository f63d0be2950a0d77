import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventLogUnavailableError,
  type EventStore,
  type RecordedEvent,
} from '../../infrastructure/event-store/event-store.ts';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres/postgres-event-store.ts';
import { eventStoreContract } from '../contracts/event-store.contract.ts';
import { anEvent, collectUntil, events, uniqueStreamId } from '../support/events.ts';
import { createPostgresLogDatabase } from '../support/postgres-log.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

describe('PostgreSQL event log (EVENT_LOG_URL of scripts/services.sh)', () => {
  let database: Awaited<ReturnType<typeof createPostgresLogDatabase>>;
  const open = () =>
    createPostgresEventStore({ url: database.url, poolSize: 16, statementTimeoutMs: 10_000 });
  beforeAll(async () => {
    database = await createPostgresLogDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  eventStoreContract('PostgreSQL', open);

  describe('positions in commit order', () => {
    let store: EventStore;
    let raw: postgres.Sql;
    beforeAll(async () => {
      store = await open();
      raw = postgres(database.url, { max: 2, onnotice: () => undefined });
    });
    afterAll(async () => {
      await store?.close();
      await raw?.end();
    });

    it('a follower never passes over an event whose transaction took its position first and commits last', async () => {
      const head = (await store.headPosition()) ?? 0n;
      const [late, early] = [uniqueStreamId('late'), uniqueStreamId('early')];
      const following = collectUntil(
        (signal) => store.subscribeToAll({ after: head, signal }),
        (seen) =>
          seen.some((event) => event.streamId === late) && seen.some((event) => event.streamId === early),
      );
      // Another appender's transaction: it has taken its position and is slow to commit.
      const slow = await raw.reserve();
      await slow`BEGIN`;
      const [taken] = await slow`INSERT INTO event_log.events (stream_id, revision, id, type, data, metadata)
        VALUES (${late}, 0, ${anEvent().id}, 'Late', '{}', ${JSON.stringify(anEvent().metadata)})
        RETURNING position::text AS pos`;
      await store.appendToStream(early, [anEvent('Early')], { expectedRevision: 'no-stream' });

      // The trap: ordered by the serial alone, a reader sees the later serial first and moves past the other.
      const naive = await raw`SELECT stream_id, position::text AS pos FROM event_log.events
        WHERE position >= ${taken!['pos']}::bigint ORDER BY position`;
      expect(naive.map((row) => row['stream_id'])).toEqual([early]);
      // This log shows neither until the older transaction ends (a read waits a moment for it, then answers).
      expect(await store.readAll({ after: head, maxCount: 10 })).toEqual([]);

      await slow`COMMIT`;
      slow.release();
      const seen = (await following).map((event) => event.streamId);
      expect(seen).toEqual([late, early]);
      const all = await store.readAll({ after: head, maxCount: 10 });
      expect(all.map((event) => event.streamId)).toEqual([late, early]);
    });

    it('a read right after an append shows it, though an unrelated transaction was open a moment longer', async () => {
      const before = (await store.headPosition()) ?? 0n;
      // Another client's short transaction, begun before the append (it holds back what followers see).
      const other = await raw.reserve();
      await other`BEGIN`;
      await other`SELECT pg_current_xact_id()`;
      const streamId = uniqueStreamId('mine');
      const appended = await store.appendToStream(streamId, [anEvent('Mine')], {
        expectedRevision: 'no-stream',
      });
      // Every token a command hands out is at most the head, in sight or not: no "beyond the end" for it.
      expect(await store.headPosition()).toBe(appended.position);
      const reading = store.readAll({ after: before, maxCount: 10 });
      setTimeout(() => void other`COMMIT`.then(() => other.release()), 100);
      expect((await reading).map((event) => event.streamId)).toEqual([streamId]);
    });

    it('16 concurrent appenders and a live follower: every event once, positions only increasing', async () => {
      const head = (await store.headPosition()) ?? 0n;
      const streams = Array.from({ length: 16 }, () => uniqueStreamId('concurrent'));
      const perStream = 40;
      const ours = new Set(streams);
      const following = collectUntil(
        (signal) => store.subscribeToAll({ after: head, signal }),
        (seen) => seen.filter((event) => ours.has(event.streamId)).length >= streams.length * perStream,
        60_000,
      );
      await Promise.all(
        streams.map(async (streamId) => {
          for (let revision = 0; revision < perStream; revision++) {
            await store.appendToStream(streamId, events(1), {
              expectedRevision: revision === 0 ? 'no-stream' : revision - 1,
            });
          }
        }),
      );
      const seen = (await following).filter((event) => ours.has(event.streamId));
      expect(new Set(seen.map((event) => event.id)).size).toBe(streams.length * perStream);
      expect(seen.length).toBe(streams.length * perStream);
      const positions = seen.map((event: RecordedEvent) => event.position);
      expect(positions.every((position, index) => index === 0 || position > positions[index - 1]!)).toBe(
        true,
      );
      for (const streamId of streams) {
        const revisions = seen.filter((event) => event.streamId === streamId).map((event) => event.revision);
        expect(revisions).toEqual(Array.from({ length: perStream }, (_, index) => index));
      }
    });
  });

  it('creates its schema when several processes start at once on an empty database, and once', async () => {
    const fresh = await createPostgresLogDatabase();
    try {
      const stores = await Promise.all(
        Array.from({ length: 4 }, () =>
          createPostgresEventStore({ url: fresh.url, poolSize: 1, statementTimeoutMs: 10_000 }),
        ),
      );
      await stores[0]!.appendToStream(uniqueStreamId(), events(1), { expectedRevision: 'no-stream' });
      expect((await stores[3]!.readAll({ maxCount: 10 })).length).toBe(1);
      await Promise.all(stores.map((store) => store.close()));
      const raw = postgres(fresh.url, { max: 1, onnotice: () => undefined });
      expect(await raw`SELECT version FROM event_log.schema_version`).toEqual([{ version: 1 }]);
      await raw.end();
    } finally {
      await fresh.drop();
    }
  });

  describe('a lost connection', () => {
    it('is "unavailable" while the server is out of reach, and the store carries on by itself after', async () => {
      const target = new URL(database.url);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
      const viaProxy = new URL(database.url);
      viaProxy.port = String(proxy.port);
      const store = await createPostgresEventStore({
        url: viaProxy.toString(),
        poolSize: 2,
        statementTimeoutMs: 5_000,
        pollIntervalMs: 200,
      });
      const other = await open();
      try {
        const streamId = uniqueStreamId('outage');
        await store.appendToStream(streamId, events(1), { expectedRevision: 'no-stream' });
        const head = (await store.headPosition())!;
        const following = collectUntil(
          (signal) => store.subscribeToAll({ after: head - 1n, signal }),
          (seen) => seen.filter((event) => event.streamId === streamId).length === 3,
          30_000,
        );

        await proxy.cut();
        await expect(
          store.appendToStream(streamId, events(1), { expectedRevision: 0 }),
        ).rejects.toBeInstanceOf(EventLogUnavailableError);
        await expect(store.readStream(streamId)).rejects.toBeInstanceOf(EventLogUnavailableError);
        // Appended by another process meanwhile: the follower must find it once it is back.
        await other.appendToStream(streamId, events(1), { expectedRevision: 0 });

        await proxy.heal();
        await expect
          .poll(() => store.readStream(streamId).then((read) => read.length), { timeout: 15_000 })
          .toBe(2);
        await store.appendToStream(streamId, events(1), { expectedRevision: 1 });
        expect(
          (await following).filter((event) => event.streamId === streamId).map((event) => event.revision),
        ).toEqual([0, 1, 2]);
      } finally {
        await store.close();
        await other.close();
        await proxy.close();
      }
    });
  });
});
