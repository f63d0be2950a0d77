import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NO_STREAM,
  WrongExpectedRevisionError,
  type EventStore,
  type RecordedEvent,
} from '../../infrastructure/event-store/event-store.ts';
import { anEvent, collectUntil, events, uniqueStreamId } from '../support/events.ts';

/**
 * What every adapter of the EventStore port promises. Each test uses fresh stream ids and only looks at
 * the log after a position it read first, so the suite also runs against a shared server that holds other data.
 */
export const eventStoreContract = (adapterName: string, createStore: () => Promise<EventStore>) => {
  describe(`EventStore contract: ${adapterName}`, () => {
    let store: EventStore;
    beforeAll(async () => {
      store = await createStore();
    });
    afterAll(async () => {
      await store?.close();
    });

    const ourEvents = (all: RecordedEvent[], streams: string[]) =>
      all.filter((e) => streams.includes(e.streamId));

    describe('appending and reading a stream', () => {
      it('appends to a new stream and reads back every field in revision order', async () => {
        const streamId = uniqueStreamId();
        const appended = [
          anEvent('OrderPlaced', { total: { amountMinor: 4498, currency: 'EUR' }, note: 'Grüße 🚚' }),
          anEvent('OrderConfirmed', { confirmedAt: '2026-11-21T10:01:00.000Z' }),
        ];
        appended[1]!.metadata = { ...appended[1]!.metadata, actor: null, causationId: appended[0]!.id };

        const result = await store.appendToStream(streamId, appended, { expectedRevision: NO_STREAM });

        expect(result.nextExpectedRevision).toBe(1);
        expect(typeof result.position).toBe('bigint');
        const read = await store.readStream(streamId);
        expect(
          read.map(({ id, type, data, metadata, streamId: s, revision }) => ({
            id,
            type,
            data,
            metadata,
            streamId: s,
            revision,
          })),
        ).toEqual(appended.map((event, revision) => ({ ...event, streamId, revision })));
      });

      it('reads a stream from a revision, at most a count', async () => {
        const streamId = uniqueStreamId();
        await store.appendToStream(streamId, events(5), { expectedRevision: NO_STREAM });
        const read = await store.readStream(streamId, { fromRevision: 2, maxCount: 2 });
        expect(read.map((e) => [e.revision, e.data['index']])).toEqual([
          [2, 2],
          [3, 3],
        ]);
      });

      it('appends a large batch atomically, every event in order at its own revision', async () => {
        const streamId = uniqueStreamId();
        const result = await store.appendToStream(streamId, events(37), { expectedRevision: NO_STREAM });
        expect(result.nextExpectedRevision).toBe(36);
        const read = await store.readStream(streamId);
        expect(read.map((e) => [e.revision, e.data['index']])).toEqual(
          Array.from({ length: 37 }, (_, index) => [index, index]),
        );
      });

      it('reads a stream that does not exist as empty', async () => {
        expect(await store.readStream(uniqueStreamId())).toEqual([]);
      });

      it('appends at the exact revision it was given and continues the numbering', async () => {
        const streamId = uniqueStreamId();
        const first = await store.appendToStream(streamId, events(2), { expectedRevision: NO_STREAM });
        const second = await store.appendToStream(streamId, events(3), {
          expectedRevision: first.nextExpectedRevision,
        });
        expect(second.nextExpectedRevision).toBe(4);
        expect(second.position).toBeGreaterThan(first.position);
        expect((await store.readStream(streamId)).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
      });
    });

    describe('optimistic concurrency', () => {
      it('refuses "no stream" on a stream that exists, and appends nothing', async () => {
        const streamId = uniqueStreamId();
        await store.appendToStream(streamId, events(2), { expectedRevision: NO_STREAM });
        const attempt = store.appendToStream(streamId, events(1), { expectedRevision: NO_STREAM });
        await expect(attempt).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        await expect(attempt).rejects.toMatchObject({
          streamId,
          expectedRevision: NO_STREAM,
          actualRevision: 1,
        });
        expect(await store.readStream(streamId)).toHaveLength(2);
      });

      it('refuses a stale revision, and a revision ahead of the stream (no gaps)', async () => {
        const streamId = uniqueStreamId();
        await store.appendToStream(streamId, events(3), { expectedRevision: NO_STREAM });
        for (const expectedRevision of [0, 1, 3, 7]) {
          await expect(store.appendToStream(streamId, events(1), { expectedRevision })).rejects.toMatchObject(
            {
              expectedRevision,
              actualRevision: 2,
            },
          );
        }
        expect(await store.readStream(streamId)).toHaveLength(3);
      });

      it('refuses an exact revision on a stream that does not exist', async () => {
        const streamId = uniqueStreamId();
        await expect(
          store.appendToStream(streamId, events(1), { expectedRevision: 0 }),
        ).rejects.toMatchObject({
          actualRevision: NO_STREAM,
        });
        expect(await store.readStream(streamId)).toEqual([]);
      });

      it('lets exactly one of 50 parallel appends at the same expected revision win', async () => {
        const streamId = uniqueStreamId();
        await store.appendToStream(streamId, events(1), { expectedRevision: NO_STREAM });
        const attempts = await Promise.allSettled(
          Array.from({ length: 50 }, (_, writer) =>
            store.appendToStream(streamId, [anEvent('Raced', { writer })], { expectedRevision: 0 }),
          ),
        );
        const won = attempts.filter((a) => a.status === 'fulfilled');
        const lost = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(49);
        for (const loss of lost) expect(loss.reason).toBeInstanceOf(WrongExpectedRevisionError);
        const stream = await store.readStream(streamId);
        expect(stream.map((e) => e.revision)).toEqual([0, 1]);
      });
    });

    it('of appends requested together, a conflicting one fails alone and the others are stored', async () => {
      const [a, b, c] = [uniqueStreamId(), uniqueStreamId(), uniqueStreamId()];
      await store.appendToStream(c, events(1), { expectedRevision: NO_STREAM });
      const results = await Promise.allSettled([
        store.appendToStream(a, events(2), { expectedRevision: NO_STREAM }),
        store.appendToStream(c, events(1), { expectedRevision: 5 }),
        store.appendToStream(b, events(1), { expectedRevision: NO_STREAM }),
      ]);
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect((await store.readStream(a)).map((e) => e.revision)).toEqual([0, 1]);
      expect((await store.readStream(b)).map((e) => e.revision)).toEqual([0]);
      expect((await store.readStream(c)).map((e) => e.revision)).toEqual([0]);
    });

    describe('the whole log', () => {
      it('orders every event of every stream by an increasing position', async () => {
        const before = (await store.headPosition()) ?? undefined;
        const [a, b] = [uniqueStreamId(), uniqueStreamId()];
        await store.appendToStream(a, events(2), { expectedRevision: NO_STREAM });
        await store.appendToStream(b, events(1), { expectedRevision: NO_STREAM });
        const last = await store.appendToStream(a, events(1), { expectedRevision: 1 });

        const log = ourEvents(
          await store.readAll({ ...(before === undefined ? {} : { after: before }), maxCount: 1000 }),
          [a, b],
        );
        expect(log.map((e) => [e.streamId, e.revision])).toEqual([
          [a, 0],
          [a, 1],
          [b, 0],
          [a, 2],
        ]);
        const positions = log.map((e) => e.position);
        expect([...positions].sort((x, y) => (x < y ? -1 : 1))).toEqual(positions);
        expect(new Set(positions).size).toBe(positions.length);
        expect(log.at(-1)!.position).toBe(last.position);
        expect(await store.headPosition()).toBe(last.position);
      });

      it('reads after a position exclusively, at most a count', async () => {
        const streamId = uniqueStreamId();
        await store.appendToStream(streamId, events(4), { expectedRevision: NO_STREAM });
        const all = ourEvents(await store.readAll({ maxCount: 1_000_000 }), [streamId]);
        expect(all).toHaveLength(4);
        const afterFirst = await store.readAll({ after: all[0]!.position, maxCount: 2 });
        expect(afterFirst.map((e) => e.revision)).toEqual([1, 2]);
      });

      it('reads backwards before a position exclusively, newest first, at most a count', async () => {
        const streamId = uniqueStreamId();
        await store.appendToStream(streamId, events(4), { expectedRevision: NO_STREAM });
        const newest = await store.readAllBackwards({ maxCount: 2 });
        expect(ourEvents(newest, [streamId]).map((e) => e.revision)).toEqual([3, 2]);
        const beforeThird = await store.readAllBackwards({ before: newest[1]!.position, maxCount: 2 });
        expect(beforeThird.map((e) => [e.streamId, e.revision])).toEqual([
          [streamId, 1],
          [streamId, 0],
        ]);
      });
    });

    describe('subscribing to the whole log', () => {
      it('catches up from a position (exclusive), then receives live appends in order', async () => {
        const streamId = uniqueStreamId();
        const stored = await store.appendToStream(streamId, events(3), { expectedRevision: NO_STREAM });
        const [firstStored] = ourEvents(await store.readAll({ maxCount: 1_000_000 }), [streamId]);

        const received = collectUntil(
          (signal) => store.subscribeToAll({ after: firstStored!.position, signal }),
          (seen) => ourEvents(seen, [streamId]).length === 4,
        );
        await store.appendToStream(streamId, events(2), { expectedRevision: stored.nextExpectedRevision });

        const ours = ourEvents(await received, [streamId]);
        expect(ours.map((e) => e.revision)).toEqual([1, 2, 3, 4]);
      });

      it('ends when its signal aborts', async () => {
        const controller = new AbortController();
        const head = (await store.headPosition()) ?? undefined;
        const subscription = store.subscribeToAll({
          ...(head === undefined ? {} : { after: head }),
          signal: controller.signal,
        });
        const drained = (async () => {
          const seen: RecordedEvent[] = [];
          for await (const event of subscription) seen.push(event);
          return seen;
        })();
        setTimeout(() => controller.abort(), 50);
        await expect(drained).resolves.toBeInstanceOf(Array);
      });
    });

    describe('events read are shared with other readers', () => {
      /** Tries to change an event as a careless reader would; a frozen event refuses (TypeError). */
      const tamperWith = (event: RecordedEvent | undefined) => {
        try {
          const writable = event as unknown as {
            type: string;
            data: Record<string, unknown>;
            metadata: { correlationId: string };
          };
          writable.type = 'Tampered';
          writable.data['note'] = 'tampered';
          writable.metadata.correlationId = 'tampered';
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
        }
      };

      it('nothing one reader does to an event changes what another reads, by any way of reading', async () => {
        const streamId = uniqueStreamId();
        const [original] = [anEvent('OrderPlaced', { note: 'as appended' })];
        await store.appendToStream(streamId, [original!], { expectedRevision: NO_STREAM });
        const head = (await store.headPosition())!;
        // From the event before ours: `head - 1n` is a position only where positions are consecutive whole
        // numbers; on EventStoreDB it falls inside a record, which the log refuses (InvalidPositionError).
        const [previous] = await store.readAllBackwards({ before: head, maxCount: 1 });
        const from = previous === undefined ? {} : { after: previous.position };
        const ours = (all: RecordedEvent[]) => all.find((event) => event.streamId === streamId);
        const readers = {
          readStream: async () => (await store.readStream(streamId))[0] as RecordedEvent | undefined,
          readAll: async () => ours(await store.readAll({ ...from, maxCount: 10 })),
          readAllBackwards: async () => ours(await store.readAllBackwards({ maxCount: 10 })),
          subscribeToAll: async () =>
            ours(
              await collectUntil(
                (signal) => store.subscribeToAll({ ...from, signal }),
                (seen) => ours(seen) !== undefined,
              ),
            ),
        };
        for (const read of Object.values(readers)) tamperWith(await read());
        for (const [way, read] of Object.entries(readers)) {
          const event = await read();
          expect({
            way,
            type: event?.type,
            data: event?.data,
            correlationId: event?.metadata.correlationId,
          }).toEqual({
            way,
            type: 'OrderPlaced',
            data: { note: 'as appended' },
            correlationId: original!.metadata.correlationId,
          });
        }
      });
    });
  });
};
