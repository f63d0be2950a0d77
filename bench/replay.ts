// Full replay of the order read model from a log of 1,000,000 events (200,000 orders of five events each:
// placed, confirmed, paid, shipped, delivered): projections:rebuild on node:sqlite, scratch load, index
// build and swap included, beside a bare node:sqlite replay of the same log (bench/support/bare-replay.ts).
// The log is written first as the service writes it (one event per append, a thousand orders' lifecycles
// interleaved), or with --side-by-side each order's lifecycle in one append; each replay runs in a fresh
// process so that its memory high-water mark is its own.
// Then start-up: the embedded default (as `npm start` runs it) started on that log, twice: first with only the
// order read model built (the other followers of the log start from its beginning), then again (a restart,
// everything checkpointed): the time to listening and to GET /ready 200, and the memory once ready.
// Run: npm run bench:replay   Options: --orders N (default 200000) --side-by-side --rounds N (default 3)
// --report FILE (its BENCHMARKS.md section)
import { execFileSync } from 'node:child_process';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { orderDecider } from '../domain/orders/order-decider.ts';
import { orderStreamName, type OrderCommand } from '../domain/orders/order.ts';
import { NO_STREAM } from '../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../infrastructure/event-store/sqlite-event-store.ts';
import { bulkLoadCacheKib, openDatabase } from '../infrastructure/sqlite/open-database.ts';
import { orderCodec } from '../domain/orders/order-codec.ts';
import { rebuildOrderReadModel } from '../projections/orders/rebuild.ts';
import { createSqliteCheckpointStore } from '../infrastructure/event-sourcing/sqlite-checkpoint-store.ts';
import {
  createSqliteOrderReadModel,
  sqliteScratchOrderReadModel,
} from '../projections/orders/sqlite-order-read-model.ts';
import { projectFile, startProcess } from './support/processes.ts';
import { atLeast, atMost, goalsOption, writeGoals } from './support/goals.ts';
import { figure, markdownTable, memoryOf, reportOption, writeReport } from './support/report.ts';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '200000' },
    'side-by-side': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
    replay: { type: 'string' },
    ...reportOption,
    ...goalsOption,
  },
});

if (values.replay !== undefined) {
  // The child: replay DIR/events.sqlite into a fresh read store, report figures as JSON.
  const eventStore = createSqliteEventStore({ path: join(values.replay, 'events.sqlite') });
  // As the admin CLI opens it for projections:rebuild.
  const readStore = openDatabase({
    path: join(values.replay, 'read-store.sqlite'),
    cacheKib: bulkLoadCacheKib,
  });
  const started = performance.now();
  const { events } = await rebuildOrderReadModel({
    eventStore,
    live: createSqliteOrderReadModel(readStore),
    scratch: sqliteScratchOrderReadModel(readStore),
    checkpoints: createSqliteCheckpointStore(readStore),
  });
  const seconds = (performance.now() - started) / 1000;
  const orders = (readStore.prepare('SELECT count(*) AS n FROM order_views').get() as { n: number }).n;
  process.stdout.write(
    JSON.stringify({ events, orders, seconds, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }),
  );
  await eventStore.close();
  readStore.close();
} else {
  const orderCount = Number(values.orders);
  const dir = mkdtempSync(join(tmpdir(), 'bench-replay-'));
  const eventStore = createSqliteEventStore({ path: join(dir, 'events.sqlite') });
  const at = '2026-11-21T10:00:00.000Z';
  const lifecycle = (orderId: string): OrderCommand[] => [
    {
      type: 'PlaceOrder',
      data: {
        orderId,
        customerId: randomUUID(),
        items: [
          {
            productId: '1001',
            productName: 'Espresso cup',
            quantity: 2,
            unitPrice: { amountMinor: 1999, currency: 'EUR' },
          },
          {
            productId: '1017',
            productName: 'Linen tea towel',
            quantity: 1,
            unitPrice: { amountMinor: 850, currency: 'EUR' },
          },
        ],
        shippingAddress: { street: '1 Rue de Rivoli', city: 'Paris', postalCode: '75001', country: 'FR' },
        note: null,
        placedAt: at,
      },
    },
    { type: 'ConfirmOrder', data: { orderId, confirmedAt: at } },
    {
      type: 'RecordPayment',
      data: {
        orderId,
        paymentId: randomUUIDv7(),
        amount: { amountMinor: 4848, currency: 'EUR' },
        reference: 'PSP-1',
        receivedAt: at,
      },
    },
    {
      type: 'ShipOrder',
      data: { orderId, shippedAt: at, shipment: { carrier: null, trackingNumber: null, trackingUrl: null } },
    },
    { type: 'DeliverOrder', data: { orderId, deliveredAt: at } },
  ];
  const metadata = { actor: null, correlationId: randomUUID(), causationId: null, occurredAt: at };
  const writeStarted = performance.now();
  const lifecycleEvents = (orderId: string) => {
    let state = orderDecider.initialState();
    return lifecycle(orderId).flatMap((command) => {
      const decided = orderDecider.decide(command, state);
      for (const event of decided) state = orderDecider.evolve(state, event);
      // Through the codec, as the command handler stores them: the current version, in the metadata.
      return decided.map((event) => {
        const { type, data, schemaVersion } = orderCodec.encode(event);
        return { id: randomUUID(), type, data, metadata: { ...metadata, schemaVersion } };
      });
    });
  };
  for (let start = 0; start < orderCount; start += 1000) {
    const orders = Array.from({ length: Math.min(1000, orderCount - start) }, () => {
      const orderId = randomUUIDv7();
      return { stream: orderStreamName(orderId), events: lifecycleEvents(orderId) };
    });
    if (values['side-by-side']) {
      // Each order's whole lifecycle in one append: its five events side by side in the log.
      await Promise.all(
        orders.map(({ stream, events }) =>
          eventStore.appendToStream(stream, events, { expectedRevision: NO_STREAM }),
        ),
      );
      continue;
    }
    // As the service writes them: one event per command, the 1,000 orders' lifecycles interleaved, so that
    // an order's events lie about a thousand positions apart, each in a different replay batch.
    for (let step = 0; step < 5; step++) {
      await Promise.all(
        orders.map(({ stream, events }) =>
          eventStore.appendToStream(stream, [events[step]!], {
            expectedRevision: step === 0 ? NO_STREAM : step - 1,
          }),
        ),
      );
    }
  }
  await eventStore.close();
  const logSeconds = (performance.now() - writeStarted) / 1000;
  const logMb =
    (
      new DatabaseSync(join(dir, 'events.sqlite'))
        .prepare('SELECT page_count * page_size AS bytes FROM pragma_page_count, pragma_page_size')
        .get() as { bytes: number }
    ).bytes / 1e6;

  type ReplayResult = { events: number; orders: number; seconds: number; maxRssMb: number };
  const replayIn = (script: string, args: string[]) =>
    JSON.parse(
      execFileSync(process.execPath, [projectFile(script), ...args], { encoding: 'utf8' }),
    ) as ReplayResult;
  const serviceReplay = () => {
    for (const suffix of ['', '-wal', '-shm'])
      rmSync(join(dir, `read-store.sqlite${suffix}`), { force: true });
    return replayIn('bench/replay.ts', ['--replay', dir]);
  };
  const bareReplays: ReplayResult[] = [];
  const serviceReplays: ReplayResult[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    bareReplays.push(replayIn('bench/support/bare-replay.ts', [dir]));
    serviceReplays.push(serviceReplay());
  }
  rmSync(join(dir, 'bare-read-store.sqlite'), { force: true });
  /** The round of median time. */
  const medianRun = (runs: ReplayResult[]) =>
    [...runs].sort((a, b) => a.seconds - b.seconds)[Math.floor(runs.length / 2)]!;
  const result = medianRun(serviceReplays);
  const bare = medianRun(bareReplays);

  /** The embedded default on DIR: ms to its URL announced, ms to GET /ready 200, and its memory then. */
  const startUp = async () => {
    const started = performance.now();
    const embedded = await startProcess('embedded/main.ts', [], {
      PORT: '0',
      DATA_DIR: dir,
      SEED_DEMO_USERS: 'false',
      // The URL is announced at info.
      LOG_LEVEL: 'info',
    });
    const listening = performance.now() - started;
    for (;;) {
      const ready = await fetch(`${embedded.url}/ready`);
      await ready.arrayBuffer();
      if (ready.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const ready = performance.now() - started;
    const memory = memoryOf(embedded.process.pid!);
    await embedded.stop();
    return { listening, ready, ...memory };
  };
  const firstStart = await startUp();
  const restart = await startUp();
  if (process.env['BENCH_KEEP_LOG']) console.log(`log kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });

  console.log(
    `node ${process.version}; log of ${result.events.toLocaleString('en')} events written in ${logSeconds.toFixed(1)} s (${logMb.toFixed(0)} MB)`,
  );
  const rate = (run: ReplayResult) => Math.round(run.events / run.seconds);
  const ofBare = ((rate(result) / rate(bare)) * 100).toFixed(0);
  const roundsOf = (runs: ReplayResult[]) => runs.map((run) => figure(run.seconds, 2)).join(', ');
  console.log(
    `replay: ${figure(result.events)} events into ${figure(result.orders)} orders in ${result.seconds.toFixed(2)} s ` +
      `= ${figure(rate(result))} events/s (goal: 200,000), ${ofBare}% of ` +
      `the bare replay's ${figure(rate(bare))} events/s (medians of ${values.rounds} rounds: ` +
      `${roundsOf(serviceReplays)} s against ${roundsOf(bareReplays)} s); memory high-water mark ` +
      `${result.maxRssMb} MB RSS against ${bare.maxRssMb} MB`,
  );
  const firstStartInRebuilds = firstStart.ready / 1000 / result.seconds;
  writeGoals(values.goals, [
    {
      order: 5,
      path: `projections:rebuild (${figure(result.events)} events)`,
      today: '0.78',
      checks: [atLeast('of the bare node:sqlite replay', rate(result) / rate(bare), 0.9)],
      detail: `${figure(rate(result))} events/s against ${figure(rate(bare))} (medians of ${values.rounds} rounds: ${figure(result.seconds, 2)} s against ${figure(bare.seconds, 2)} s)`,
    },
    {
      order: 6,
      path: `first start, only the order read model checkpointed (${figure(result.events)} events)`,
      today: '39 s, about 4x',
      checks: [atMost('ready, in rebuild times', firstStartInRebuilds, 2, 'x', 1)],
      detail: `ready after ${figure(firstStart.ready / 1000, 1)} s (listening after ${figure(firstStart.listening / 1000, 1)} s); the rebuild took ${figure(result.seconds, 2)} s`,
    },
  ]);
  const startRows = [
    ['first start (order read model replayed, other followers from the log start)', firstStart],
    ['restart (everything checkpointed)', restart],
  ] as const;
  for (const [name, run] of startRows)
    console.log(
      `${name}: listening after ${figure(run.listening)} ms, ready after ${figure(run.ready)} ms, ` +
        `${run.rssMb} MB RSS then`,
    );
  writeReport(
    values.report,
    `## Replay and start-up on a log of ${figure(result.events)} events

\`npm run bench:replay\` (bench/replay.ts): a log of ${figure(result.orders)} orders of five events each (placed,
confirmed, paid, shipped, delivered; ${values['side-by-side'] ? "each order's events side by side" : 'one event per append, 1,000 lifecycles interleaved'}; ${figure(logMb)} MB, written in
${figure(logSeconds, 1)} s), then in a fresh process
what \`projections:rebuild\` runs: the whole log into a scratch table, its indexes built, swapped in, caught up.
The baseline (bench/support/bare-replay.ts) is the least the same replay needs on bare node:sqlite, in one
thread: the log read in position order and each event's data parsed, each order's events merged into one
document, the documents written in one transaction into a table of the same columns, the same three indexes
built, the WAL checkpointed. Baseline and service alternate, each in a fresh process, ${values.rounds} rounds; medians.

| replay | events/s | of bare | seconds (median) | rounds (seconds) | memory high-water mark |
|---|---:|---:|---:|---|---:|
| bare node:sqlite replay | ${figure(rate(bare))} | | ${figure(bare.seconds, 2)} | ${roundsOf(bareReplays)} | ${bare.maxRssMb} MB RSS |
| **order read model rebuilt** | **${figure(rate(result))}** (goal 200,000) | ${ofBare}% | ${figure(result.seconds, 2)} | ${roundsOf(serviceReplays)} | ${result.maxRssMb} MB RSS |

Start-up of the embedded default (as \`npm start\` runs it) on that log: the time from starting the process to
its URL announced (listening) and to \`GET /ready\` answering 200 (every follower of the log within
READY_MAX_PROJECTION_LAG events of the head), and its resident memory then.

${markdownTable(
  ['start', 'listening ms', 'ready ms', 'RSS MB once ready'],
  startRows.map(([name, run]) => [name, run.listening, run.ready, run.rssMb]),
)}`,
  );
}
