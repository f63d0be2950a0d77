// Embedded event log append throughput, beside raw node:sqlite doing the same inserts in the same run.
// Run: npm run bench:event-store   (options: --single N --batched N --batch-size N --rounds N)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { NO_STREAM } from '../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../infrastructure/event-store/sqlite-event-store.ts';
import { openDatabase } from '../infrastructure/sqlite/open-database.ts';
import { averageEventBytes, eventsPerStream, orderEvent } from './support/order-events.ts';
import { figure, markdownTable, median, reportOption, writeReport } from './support/report.ts';

const { values } = parseArgs({
  options: {
    single: { type: 'string', default: '100000' },
    batched: { type: 'string', default: '1000000' },
    'batch-size': { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    ...reportOption,
  },
});
const singleCount = Number(values.single);
const batchedCount = Number(values.batched);
const batchSize = Number(values['batch-size']);
const rounds = Number(values.rounds);

const dir = mkdtempSync(join(tmpdir(), 'bench-event-store-'));
const event = orderEvent;
const averageBytes = averageEventBytes;

const rate = (count: number, ms: number) => Math.round((count / ms) * 1000);
const time = async (run: () => unknown) => {
  const start = performance.now();
  await run();
  return performance.now() - start;
};

/**
 * The least node:sqlite needs for the same work: the same event table and pragmas, one INSERT per event,
 * and none of the store's checks (no stream revision compare-and-set, no result).
 */
const rawSqlite = (file: string) => {
  const db = openDatabase({ path: join(dir, file) });
  db.exec(`CREATE TABLE events (position INTEGER PRIMARY KEY, stream_key INTEGER NOT NULL, stream_id TEXT NOT NULL,
    revision INTEGER NOT NULL, id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL,
    UNIQUE (stream_key, revision))`);
  const insert = db.prepare(
    'INSERT INTO events (stream_key, stream_id, revision, id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const row = (n: number) => {
    const e = event(n);
    const stream = Math.floor(n / eventsPerStream);
    insert.run(
      stream,
      `order-${stream}`,
      n % eventsPerStream,
      e.id,
      e.type,
      JSON.stringify(e.data),
      JSON.stringify(e.metadata),
    );
  };
  return { db, row };
};

type Case = { name: string; events: number; run: (file: string) => Promise<void> | void };

const cases: Case[] = [
  {
    name: 'raw node:sqlite, one insert per transaction',
    events: singleCount,
    run: (file) => {
      const { db, row } = rawSqlite(file);
      for (let n = 0; n < singleCount; n++) row(n);
      db.close();
    },
  },
  {
    name: 'event store, single appends (1 event each)',
    events: singleCount,
    run: async (file) => {
      const store = createSqliteEventStore({ path: join(dir, file) });
      for (let n = 0; n < singleCount; n++) {
        const revision = n % eventsPerStream;
        await store.appendToStream(`order-${Math.floor(n / eventsPerStream)}`, [event(n)], {
          expectedRevision: revision === 0 ? NO_STREAM : revision - 1,
        });
      }
      await store.close();
    },
  },
  {
    name: `raw node:sqlite, ${batchSize} inserts per transaction`,
    events: batchedCount,
    run: (file) => {
      const { db, row } = rawSqlite(file);
      const [begin, commit] = [db.prepare('BEGIN'), db.prepare('COMMIT')];
      for (let n = 0; n < batchedCount; n += batchSize) {
        begin.run();
        for (let i = n; i < n + batchSize; i++) row(i);
        commit.run();
      }
      db.close();
    },
  },
  {
    name: `event store, batched appends (${batchSize} events each)`,
    events: batchedCount,
    run: async (file) => {
      const store = createSqliteEventStore({ path: join(dir, file) });
      for (let n = 0; n < batchedCount; n += batchSize) {
        const batch = Array.from({ length: batchSize }, (_, i) => event(n + i));
        await store.appendToStream(`batch-${n}`, batch, { expectedRevision: NO_STREAM });
      }
      await store.close();
    },
  },
];

// This machine is noisy (shared disk, two cores): the baseline and the store alternate, round after round,
// each on a fresh file, and the median of the rounds is reported.
const perSecond = new Map<string, number[]>(cases.map((c) => [c.name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [index, benchCase] of cases.entries()) {
    const file = `round-${round}-case-${index}.sqlite`;
    const ms = await time(() => benchCase.run(file));
    perSecond.get(benchCase.name)!.push(rate(benchCase.events, ms));
    rmSync(join(dir, file), { force: true });
    rmSync(join(dir, `${file}-wal`), { force: true });
    rmSync(join(dir, `${file}-shm`), { force: true });
  }
}
rmSync(dir, { recursive: true, force: true });

const rows = cases.map((c) => ({
  case: c.name,
  events: c.events,
  'median events/s': median(perSecond.get(c.name)!),
  rounds: perSecond.get(c.name)!.join(' '),
}));
console.log(
  `node ${process.version}, ${rounds} rounds, durability: process-crash (WAL, synchronous=NORMAL), ~${averageBytes} bytes/event`,
);
console.table(rows);
const [rawSingle, storeSingle, rawBatched, storeBatched] = rows.map((r) => r['median events/s']) as [
  number,
  number,
  number,
  number,
];
console.log(
  `single appends: ${storeSingle}/s, ${(storeSingle / rawSingle).toFixed(2)} x raw node:sqlite (goal 20000/s)`,
);
console.log(
  `batched appends: ${storeBatched}/s, ${(storeBatched / rawBatched).toFixed(2)} x raw node:sqlite (goal 200000/s)`,
);

writeReport(
  values.report,
  `## Embedded event log: appends

\`npm run bench:event-store\` (bench/event-store-append.ts): the five events of an order's lifecycle, about
${averageBytes} bytes each with metadata, appended to the node:sqlite log (WAL, \`synchronous=NORMAL\`: every
acknowledged append survives a killed process). The baseline, raw node:sqlite, is the least SQLite needs for
the same rows: the same table, index and pragmas, one prepared INSERT per event, none of the store's work.
${rounds} rounds, baseline and store alternating on fresh files; medians.

${markdownTable(
  ['case', 'events/s (median)', 'of raw', 'rounds'],
  rows.map((row, index) => [
    index % 2 === 1 ? `**${row.case}**` : row.case,
    row['median events/s'],
    index % 2 === 1 ? `${figure(row['median events/s'] / rows[index - 1]!['median events/s'], 2)} x` : '',
    perSecond
      .get(row.case)!
      .map((value) => figure(value))
      .join(' '),
  ]),
)}

Goals: 20,000 single appends/s, 200,000 events/s in batches.`,
);
