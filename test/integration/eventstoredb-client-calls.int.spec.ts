/**
 * The EventStoreDB adapter through the real `@eventstore/db-client` against a fake of the server only: a
 * gRPC server that speaks `event_store.client.streams.Streams/Read` (the client's own generated service
 * definition and messages), because no EventStoreDB can run here. It serves a log of 50,000 events the way
 * the server does what matters here: each read serves exactly the count it was asked for, or up to the end
 * of the log, writing no faster than the client reads (HTTP/2 flow control), so that a call the client stops
 * reading without cancelling stays open, as it does on EventStoreDB; a subscription stays open until
 * cancelled; a position that is no record's is refused with the server's own error. It counts the calls
 * open. What it cannot show: anything of the real server's storage, filtering or timing (docs/testing.md).
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import express from 'express';
import { pino } from 'pino';
import * as grpc from '@grpc/grpc-js';
import { EventStoreDBClient } from '@eventstore/db-client';
import type * as StreamsMessages from '@eventstore/db-client/generated/streams_pb.js';
import type * as SharedMessages from '@eventstore/db-client/generated/shared_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidPositionError,
  type EventStore,
  type GlobalPosition,
} from '../../infrastructure/event-store/event-store.ts';
import { createEventStoreDbEventStore } from '../../infrastructure/event-store/eventstoredb-event-store.ts';
import {
  createProblemRenderer,
  errorHandler,
  useProblemRenderer,
} from '../../infrastructure/http/problem-details.ts';
import { auditRoutes } from '../../query-api/audit/audit-routes.ts';

type StreamsPb = typeof StreamsMessages;
type SharedPb = typeof SharedMessages;

// The client's own generated code, loaded as the client loads it (CommonJS), so that its messages are the
// very classes the service definition serialises.
const require = createRequire(import.meta.url);
const { ReadReq, ReadResp } = require('@eventstore/db-client/generated/streams_pb.js') as StreamsPb;
const { UUID, StreamIdentifier } = require('@eventstore/db-client/generated/shared_pb.js') as SharedPb;
const { StreamsService } = require('@eventstore/db-client/generated/streams_grpc_pb.js') as {
  StreamsService: grpc.ServiceDefinition;
};

type ReadRequest = InstanceType<StreamsPb['ReadReq']>;
type ReadResponse = InstanceType<StreamsPb['ReadResp']>;

const logSize = 50_000;
const streams = 7;
/** Event k of the log sits at (commit, prepare) = ((k + 1) * 1000, (k + 1) * 1000); nothing in between. */
const step = 1000n;
const recordPosition = (k: number) => BigInt(k + 1) * step;
/** Every hundredth event, and the last three, are system events (as $stats and $scavenges are). */
const isSystem = (k: number) => k % 100 === 99 || k >= logSize - 3;
const streamOf = (k: number) => (isSystem(k) ? '$stats-127.0.0.1:2113' : `order-${k % streams}`);
/** What the adapter hands out for event k: commit in the high 64 bits, prepare in the low. */
const packed = (k: number) => (recordPosition(k) << 64n) | recordPosition(k);

/** The index of the record at a position, 'invalid' for a position inside one, or where a read starts. */
const recordAt = (commit: bigint, prepare: bigint): number | 'invalid' | 'beyond' => {
  if (commit !== prepare) return 'invalid';
  if (commit > recordPosition(logSize - 1)) return 'beyond';
  if (commit === 0n) return 0;
  return commit % step === 0n ? Number(commit / step) - 1 : 'invalid';
};

const responseFor = (k: number): ReadResponse => {
  const position = recordPosition(k).toString();
  const recorded = new ReadResp.ReadEvent.RecordedEvent();
  const id = new UUID();
  id.setString(`00000000-0000-4000-8000-${k.toString(16).padStart(12, '0')}`);
  recorded.setId(id);
  const stream = new StreamIdentifier();
  stream.setStreamName(Buffer.from(streamOf(k)));
  recorded.setStreamIdentifier(stream);
  recorded.setStreamRevision(String(isSystem(k) ? k : Math.floor(k / streams)));
  recorded.setCommitPosition(position);
  recorded.setPreparePosition(position);
  recorded
    .getMetadataMap()
    .set('type', isSystem(k) ? '$statsCollected' : 'OrderPlaced')
    .set('content-type', 'application/json')
    .set('created', '638000000000000000');
  recorded.setData(
    Buffer.from(JSON.stringify({ orderId: `order-${k}`, items: [{ sku: 'x', quantity: 1 }] })),
  );
  recorded.setCustomMetadata(
    Buffer.from(
      JSON.stringify({
        actor: null,
        correlationId: `request-${k}`,
        causationId: null,
        occurredAt: '2026-11-27T00:00:00.000Z',
      }),
    ),
  );
  const event = new ReadResp.ReadEvent();
  event.setEvent(recorded);
  event.setCommitPosition(position);
  const response = new ReadResp();
  response.setEvent(event);
  return response;
};

type Read = { kind: 'all' | 'stream' | 'subscription'; count: bigint | null };

/** The fake server: Streams.Read over the log above; every call counted while it is open. */
const startFakeEventStoreDb = async ({ maxConcurrentStreams }: { maxConcurrentStreams?: number } = {}) => {
  let open = 0;
  let stalled = false;
  const reads: Read[] = [];

  const read = async (call: grpc.ServerWritableStream<ReadRequest, ReadResponse>) => {
    open++;
    let closed = false;
    const close = () => {
      if (!closed) open--;
      closed = true;
    };
    call.on('cancelled', close);
    call.on('close', close);
    const options = call.request.getOptions()!;
    const subscription = options.hasSubscription();
    const count = options.hasCount() ? BigInt(options.getCount()) : null;
    reads.push({ kind: subscription ? 'subscription' : options.hasAll() ? 'all' : 'stream', count });
    if (stalled) {
      // A server that accepted the call and then says nothing (overloaded, or a network gone quiet).
      await once(call, 'cancelled');
      return close();
    }
    const backwards = options.getReadDirection() === ReadReq.Options.ReadDirection.BACKWARDS;
    const skipSystem = options.hasFilter();

    /** Writes as fast as the client reads: false once the call is over. */
    const send = async (response: ReadResponse) => {
      if (call.cancelled || closed) return false;
      if (!call.write(response)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            for (const event of ['drain', 'cancelled', 'close']) call.off(event, done);
            resolve();
          };
          for (const event of ['drain', 'cancelled', 'close']) call.on(event, done);
        });
      }
      return !call.cancelled && !closed;
    };
    const refuse = (details: string) => {
      call.emit('error', { code: grpc.status.UNKNOWN, details });
      close();
    };

    let indices: Iterable<number>;
    if (options.hasAll()) {
      const all = options.getAll()!;
      let first: number;
      if (all.hasStart()) first = 0;
      else if (all.hasEnd()) first = backwards ? logSize - 1 : logSize;
      else {
        const position = all.getPosition()!;
        const commit = BigInt(position.getCommitPosition());
        const prepare = BigInt(position.getPreparePosition());
        // EventStoreDB's Position refuses such a pair in its constructor: the handler throws.
        if (commit < prepare) return refuse('Exception was thrown by handler.');
        const at = recordAt(commit, prepare);
        if (at === 'invalid') return refuse('Trying to read from an invalid position.');
        // Past the last record a forwards read finds nothing; a backwards one fails ("Requested position
        // ... is greater than writer checkpoint").
        if (at === 'beyond' && backwards) return refuse('Exception was thrown by handler.');
        if (at === 'beyond') first = logSize;
        // Forwards reads start at the position, inclusively; backwards ones before it, and subscriptions
        // after it.
        else first = subscription ? at + 1 : backwards ? at - 1 : at;
      }
      indices = (function* () {
        if (backwards) for (let k = first; k >= 0; k--) yield k;
        else for (let k = first; k < logSize; k++) yield k;
      })();
    } else {
      const stream = options.getStream()!;
      const name = Buffer.from(stream.getStreamIdentifier()!.getStreamName_asU8()).toString();
      const match = /^order-(\d+)$/.exec(name);
      if (!match || Number(match[1]) >= streams) {
        const response = new ReadResp();
        const notFound = new ReadResp.StreamNotFound();
        notFound.setStreamIdentifier(stream.getStreamIdentifier());
        response.setStreamNotFound(notFound);
        await send(response);
        call.end();
        return close();
      }
      const from = stream.hasRevision() ? Number(stream.getRevision()) : 0;
      const residue = Number(match[1]);
      indices = (function* () {
        for (let k = from * streams + residue; k < logSize; k += streams) if (!isSystem(k)) yield k;
      })();
    }

    if (subscription) {
      const confirmation = new ReadResp();
      const confirmed = new ReadResp.SubscriptionConfirmation();
      confirmed.setSubscriptionId('subscription-1');
      confirmation.setConfirmation(confirmed);
      if (!(await send(confirmation))) return close();
    }
    let sent = 0n;
    for (const k of indices) {
      if (count !== null && sent >= count) break;
      if (skipSystem && isSystem(k)) continue;
      if (!(await send(responseFor(k)))) return close();
      sent++;
      if (sent % 256n === 0n) await yieldToEventLoop();
    }
    if (subscription) {
      // Caught up: a subscription stays open for what comes next, until the client cancels it.
      await once(call, 'cancelled');
      return close();
    }
    call.end();
    close();
  };

  const server = new grpc.Server(
    maxConcurrentStreams === undefined ? {} : { 'grpc.max_concurrent_streams': maxConcurrentStreams },
  );
  server.addService(StreamsService, { read });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return {
    url: `esdb://127.0.0.1:${port}?tls=false`,
    openCalls: () => open,
    reads,
    stall: (on: boolean) => {
      stalled = on;
    },
    stop: () => server.forceShutdown(),
  };
};

type FakeServer = Awaited<ReturnType<typeof startFakeEventStoreDb>>;

/** Waits until the server has no call open (a cancel reaches it a moment later), at most a second. */
const noCallOpen = async (server: FakeServer) => {
  const deadline = Date.now() + 1000;
  while (server.openCalls() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  return server.openCalls();
};

/** The answer, or a failure after `ms`: a call the server never answers must fail the test, not hang it. */
const within = <T>(ms: number, promise: Promise<T>): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref(),
    ),
  ]);

describe('EventStoreDB adapter: every read ends its gRPC call (real client, fake server)', () => {
  let server: FakeServer;
  let store: EventStore;

  beforeAll(async () => {
    server = await startFakeEventStoreDb();
    store = createEventStoreDbEventStore(EventStoreDBClient.connectionString(server.url));
  });
  afterAll(async () => {
    await store?.close();
    server?.stop();
  });

  it('headPosition: the last event that is not a system event, and no call left open', async () => {
    for (let i = 0; i < 5; i++) {
      const calls = server.reads.length;
      expect(await within(5000, store.headPosition())).toBe(packed(logSize - 4));
      expect(await noCallOpen(server)).toBe(0);
      // A page of one, then one of a few past the three system events at the end.
      expect(server.reads.slice(calls).map((read) => read.count)).toEqual([1n, 4n]);
    }
  });

  it('readAll with maxCount, from the start and after a position: no call left open', async () => {
    const first = await within(5000, store.readAll({ maxCount: 3 }));
    expect(first.map((event) => event.position)).toEqual([packed(0), packed(1), packed(2)]);
    expect(await noCallOpen(server)).toBe(0);
    // Across a system event (k = 99) and so across pages of the server's count.
    const next = await within(5000, store.readAll({ after: packed(97), maxCount: 3 }));
    expect(next.map((event) => event.position)).toEqual([packed(98), packed(100), packed(101)]);
    expect(await noCallOpen(server)).toBe(0);
  });

  it('readAllBackwards, from the end and before a position: no call left open', async () => {
    const last = await within(5000, store.readAllBackwards({ maxCount: 2 }));
    expect(last.map((event) => event.position)).toEqual([packed(logSize - 4), packed(logSize - 5)]);
    expect(await noCallOpen(server)).toBe(0);
    const before = await within(5000, store.readAllBackwards({ before: packed(101), maxCount: 3 }));
    expect(before.map((event) => event.position)).toEqual([packed(100), packed(98), packed(97)]);
    expect(await noCallOpen(server)).toBe(0);
    // A well-formed position past the end of the log: the newest events backwards, nothing forwards.
    const past = packed(logSize + 10);
    const newest = await within(5000, store.readAllBackwards({ before: past, maxCount: 2 }));
    expect(newest.map((event) => event.position)).toEqual([packed(logSize - 4), packed(logSize - 5)]);
    expect(await within(5000, store.readAll({ after: past, maxCount: 2 }))).toEqual([]);
    expect(await noCallOpen(server)).toBe(0);
  });

  it('readStream with maxCount, and a whole stream read in bounded pages: no call left open', async () => {
    const some = await within(5000, store.readStream('order-1', { fromRevision: 2, maxCount: 4 }));
    expect(some.map((event) => event.revision)).toEqual([2, 3, 4, 5]);
    expect(await noCallOpen(server)).toBe(0);
    const whole = await within(20_000, store.readStream('order-3'));
    const expected = Array.from({ length: logSize }, (_, k) => k).filter(
      (k) => k % streams === 3 && !isSystem(k),
    );
    expect(whole.map((event) => event.id)).toEqual(
      expected.map((k) => `00000000-0000-4000-8000-${k.toString(16).padStart(12, '0')}`),
    );
    expect(await noCallOpen(server)).toBe(0);
    expect(await within(5000, store.readStream('order-99'))).toEqual([]);
    expect(await noCallOpen(server)).toBe(0);
  });

  it('a subscription stopped early, by break or by its signal, ends its call', async () => {
    const seen: GlobalPosition[] = [];
    for await (const event of store.subscribeToAll({ after: packed(10) })) {
      seen.push(event.position);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual([packed(11), packed(12), packed(13)]);
    expect(await noCallOpen(server)).toBe(0);

    const stop = new AbortController();
    let count = 0;
    for await (const _event of store.subscribeToAll({ signal: stop.signal })) {
      if (++count === 2) stop.abort();
    }
    expect(await noCallOpen(server)).toBe(0);
  });

  it('a read the server does not answer fails at its deadline, and its call ends', async () => {
    const impatient = createEventStoreDbEventStore(EventStoreDBClient.connectionString(server.url), {
      readDeadlineMs: 300,
    });
    server.stall(true);
    try {
      await expect(within(5000, impatient.headPosition())).rejects.toThrow(/within 300 ms/);
      await expect(within(5000, impatient.readStream('order-1'))).rejects.toThrow(/within 300 ms/);
      await expect(within(5000, impatient.readAll({ after: packed(5), maxCount: 5 }))).rejects.toThrow(
        /within 300 ms/,
      );
      expect(await noCallOpen(server)).toBe(0);
    } finally {
      server.stall(false);
      await impatient.close();
    }
  });

  it('every read names a count the server can serve quickly', () => {
    for (const read of server.reads.filter(({ kind }) => kind !== 'subscription')) {
      expect(read.count).not.toBeNull();
      expect(read.count!).toBeLessThanOrEqual(4097n);
    }
  });

  it('a position the log never issued is refused with InvalidPositionError', async () => {
    const calls = server.reads.length;
    // 5 unpacks to (commit 0, prepare 5): no event of EventStoreDB has such a pair; never sent.
    await expect(store.readAll({ after: 5n, maxCount: 10 })).rejects.toBeInstanceOf(InvalidPositionError);
    await expect(store.readAllBackwards({ before: 5n, maxCount: 10 })).rejects.toBeInstanceOf(
      InvalidPositionError,
    );
    await expect(
      (async () => {
        for await (const _event of store.subscribeToAll({ after: 5n })) break;
      })(),
    ).rejects.toBeInstanceOf(InvalidPositionError);
    await expect(store.readAll({ after: 1n << 130n, maxCount: 1 })).rejects.toBeInstanceOf(
      InvalidPositionError,
    );
    expect(server.reads.length).toBe(calls);
    // A well-formed pair inside a record: the server refuses it ("invalid position"), the adapter says so.
    const inside = (1500n << 64n) | 1500n;
    await expect(store.readAll({ after: inside, maxCount: 10 })).rejects.toBeInstanceOf(InvalidPositionError);
    await expect(store.readAllBackwards({ before: inside, maxCount: 10 })).rejects.toBeInstanceOf(
      InvalidPositionError,
    );
    expect(await noCallOpen(server)).toBe(0);
  });

  it('GET /audit/events with such a position: 400 validation-failed naming the parameter', async () => {
    const app = express();
    app.use(
      auditRoutes({
        eventStore: store,
        authenticator: {
          principalFor: async () => ({
            userId: 'auditor-1',
            roles: ['auditor'],
            tokenId: 'token-1',
            sessionId: null,
            issuedAt: 0,
            expiresAt: 2 ** 31,
          }),
          forget: () => {},
        },
        reveal: async (json) => json,
        // No webhook subscription is read here: nothing to open.
        webhookCipher: {
          open: () => {
            throw new Error('no sealed webhook URL in this log');
          },
        },
      }),
    );
    useProblemRenderer(app, createProblemRenderer({ errorTypeBase: 'http://test/problems', realm: 'test' }));
    app.use(errorHandler(pino({ level: 'silent' })));
    const http = app.listen(0, '127.0.0.1');
    await once(http, 'listening');
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const get = (query: string) =>
      fetch(`${base}/audit/events?${query}`, { headers: { Authorization: 'Bearer token' } });
    try {
      for (const [query, field] of [
        ['after=5', 'after'],
        ['before=5', 'before'],
        [`after=${(1500n << 64n) | 1500n}`, 'after'],
      ] as const) {
        const response = await get(query);
        expect(response.status, query).toBe(400);
        const problem = (await response.json()) as { type: string; errors: { field: string }[] };
        expect(problem.type).toBe('http://test/problems/validation-failed');
        expect(problem.errors.map((error) => error.field)).toEqual([field]);
      }
      const page = await get(`after=${packed(97)}&limit=2`);
      expect(page.status).toBe(200);
      const body = (await page.json()) as { data: { position: string }[] };
      expect(body.data.map((event) => event.position)).toEqual([String(packed(98)), String(packed(100))]);
      expect(await noCallOpen(server)).toBe(0);
    } finally {
      http.close();
    }
  });
});

describe('EventStoreDB adapter under the server limit of concurrent calls (HTTP/2 MAX_CONCURRENT_STREAMS)', () => {
  let server: FakeServer;
  let store: EventStore;

  beforeAll(async () => {
    // EventStoreDB (Kestrel) allows 100 streams per connection; 10 here, so that a leak shows in 11 calls.
    server = await startFakeEventStoreDb({ maxConcurrentStreams: 10 });
    store = createEventStoreDbEventStore(EventStoreDBClient.connectionString(server.url));
  });
  afterAll(async () => {
    await store?.close();
    server?.stop();
  });

  it('200 headPosition calls in a row all answer, and none stays open', async () => {
    for (let i = 0; i < 200; i++) {
      expect(await within(3000, store.headPosition()), `call ${i + 1}`).toBe(packed(logSize - 4));
    }
    expect(await noCallOpen(server)).toBe(0);
  });

  it('and so do pages of the audit log and the reads of a lag check, 50 of each', async () => {
    for (let i = 0; i < 50; i++) {
      await within(3000, store.readAll({ after: packed(i * 10), maxCount: 5 }));
      await within(3000, store.readAllBackwards({ before: packed(1000 + i), maxCount: 5 }));
    }
    expect(await noCallOpen(server)).toBe(0);
  });
});
