// Full replay of the order read model from a log of 1,000,000 events (200,000 orders of five events each:
// placed, confirmed, paid, shipped, delivered): projections:rebuild on node:sqlite, scratch load, index
// build and swap included. The log is written first, each order's lifecycle in one append (its events side
// by side), or with --interleaved as the service writes it (one event per append, a thousand orders'
// lifecycles interleaved); the replay runs in a fresh process so that its memory high-water mark is its own.
// Then start-up: the embedded default (as `npm start` runs it) started on that log, twice: first with only the
// order read model built (the other followers of the log start from its beginning), then again (a restart,
// everything checkpointed): the time to listening and to GET /ready 200, and the memory once ready.
// Run: npm run bench:replay   Options: --orders N (default 200000) --interleaved --report FILE (its BENCHMARKS.md
// section)
import { execFileSync } from 'node:child_process';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { orderDecider } from '../domain/order/order-decider.ts';
import { orderStreamName, type OrderCommand } from '../domain/order/order.ts';
import { NO_STREAM } from '../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../infrastructure/event-store/sqlite-event-store.ts';
import { openDatabase } from '../infrastructure/sqlite/open-database.ts';
import { rebuildOrderReadModel } from '../projections/rebuild.ts';
import { createSqliteCheckpointStore } from '../projections/sqlite-checkpoint-store.ts';
import {
  createSqliteOrderReadModel,
  sqliteScratchOrderReadModel,
} from '../projections/sqlite-order-read-model.ts';
import { projectFile, startProcess } from './support/processes.ts';
import { figure, markdownTable, memoryOf, reportOption, writeReport } from './support/report.ts';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '200000' },
    interleaved: { type: 'boolean', default: false },
    replay: { type: 'string' },
    ...reportOption,
  },
});

if (values.replay !== undefined) {
  // The child: replay DIR/events.sqlite into a fresh read store, report figures as JSON.
  const eventStore = createSqliteEventStore({ path: join(values.replay, 'events.sqlite') });
  const readStore = openDatabase({ path: join(values.replay, 'read-store.sqlite') });
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
    { type: 'ShipOrder', data: { orderId, shippedAt: at } },
    { type: 'DeliverOrder', data: { orderId, deliveredAt: at } },
  ];
  const metadata = { actor: null, correlationId: randomUUID(), causationId: null, occurredAt: at };
  const writeStarted = performance.now();
  const lifecycleEvents = (orderId: string) => {
    let state = orderDecider.initialState();
    return lifecycle(orderId).flatMap((command) => {
      const decided = orderDecider.decide(command, state);
      for (const event of decided) state = orderDecider.evolve(state, event);
      return decided.map((event) => ({ id: randomUUID(), type: event.type, data: event.data, metadata }));
    });
  };
  for (let start = 0; start < orderCount; start += 1000) {
    const orders = Array.from({ length: Math.min(1000, orderCount - start) }, () => {
      const orderId = randomUUIDv7();
      return { stream: orderStreamName(orderId), events: lifecycleEvents(orderId) };
    });
    if (!values.interleaved) {
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

  const result = JSON.parse(
    execFileSync(process.execPath, [projectFile('bench/replay.ts'), '--replay', dir], { encoding: 'utf8' }),
  ) as { events: number; orders: number; seconds: number; maxRssMb: number };

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
  console.log(
    `replay: ${result.events.toLocaleString('en')} events into ${result.orders.toLocaleString('en')} orders in ` +
      `${result.seconds.toFixed(2)} s = ${Math.round(result.events / result.seconds).toLocaleString('en')} events/s ` +
      `(goal: 200,000); memory high-water mark ${result.maxRssMb} MB RSS`,
  );
  const startRows = [
    ['first start (order read model replayed, other followers from the log start)', firstStart],
    ['restart (everything checkpointed)', restart],
  ] as const;
  for (const [name, run] of startRows)
    console.log(
      `${name}: listening after ${figure(run.listening)} ms, ready after ${figure(run.ready)} ms, ` +
        `${run.rssMb} MB RSS then`,
    );
  const eventsPerSecond = Math.round(result.events / result.seconds);
  writeReport(
    values.report,
    `## Replay and start-up on a log of ${figure(result.events)} events

\`npm run bench:replay\` (bench/replay.ts): a log of ${figure(result.orders)} orders of five events each (placed,
confirmed, paid, shipped, delivered; ${values.interleaved ? 'one event per append, 1,000 lifecycles interleaved' : "each order's events side by side"}; ${figure(logMb)} MB, written in
${figure(logSeconds, 1)} s), then in a fresh process
what \`projections:rebuild\` runs: the whole log into a scratch table, its indexes built, swapped in, caught up.

| replay | events/s | seconds | memory high-water mark |
|---|---:|---:|---:|
| **order read model rebuilt** | **${figure(eventsPerSecond)}** (goal 200,000) | ${figure(result.seconds, 2)} | ${result.maxRssMb} MB RSS |

Start-up of the embedded default (as \`npm start\` runs it) on that log: the time from starting the process to
its URL announced (listening) and to \`GET /ready\` answering 200 (every follower of the log within
READY_MAX_PROJECTION_LAG events of the head), and its resident memory then.

${markdownTable(
  ['start', 'listening ms', 'ready ms', 'RSS MB once ready'],
  startRows.map(([name, run]) => [name, run.listening, run.ready, run.rssMb]),
)}`,
  );
}
