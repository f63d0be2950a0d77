// The MongoDB-wire test stands side by side, in the same run: FerretDB 1.24 on SQLite, on PostgreSQL as
// FerretDB leaves it (btree indexes only), and on PostgreSQL with the GIN twins scripts/services.sh adds
// (the default). Each is started fresh by `scripts/services.sh ferretdb-start` on ports and a state dir of
// its own (the servers of `scripts/services.sh start` are not touched), filled with order views through
// the MongoDB order read model (so with the indexes it creates), and measured at 500, 2,000 and 8,000
// documents: findOne({_id}) of a stored order, and the insert-then-read a reader pays to see a new order
// (its findOne misses, the order is inserted, its next findOne hits), the 201-to-readable path's store part.
// Run: npm run bench:test-stands
// Options: --sizes 500,2000,8000 --lookups N --seconds S (per size and measure, over all rounds) --rounds R
// --stands sqlite,postgresql-btree,postgresql
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { createMongoOrderReadModel } from '../projections/orders/mongo-order-read-model.ts';
import { figure, markdownTable, median, reportOption, writeReport } from './support/report.ts';
import { projectFile } from './support/processes.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '500,2000,8000' },
    // Per size and measure: this many samples, or fewer when they take longer than --seconds.
    lookups: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '15' },
    rounds: { type: 'string', default: '3' },
    stands: { type: 'string', default: 'sqlite,postgresql-btree,postgresql' },
    ...reportOption,
  },
});
const sizes = values.sizes.split(',').map(Number);
const samplesWanted = Number(values.lookups);
const secondsPerMeasure = Number(values.seconds);
const rounds = Number(values.rounds);
const minimumSamples = 21;

type Stand = { name: string; label: string; env: Record<string, string> };
const allStands: Stand[] = [
  { name: 'sqlite', label: 'FerretDB on SQLite', env: { FERRETDB_BACKEND: 'sqlite' } },
  {
    name: 'postgresql-btree',
    label: "FerretDB on PostgreSQL, FerretDB's btrees only",
    env: { FERRETDB_BACKEND: 'postgresql', POSTGRES_GIN_TWINS: 'false' },
  },
  {
    name: 'postgresql',
    label: '**FerretDB on PostgreSQL with GIN twins** (the default)',
    env: { FERRETDB_BACKEND: 'postgresql', POSTGRES_GIN_TWINS: 'true' },
  },
];
const stands = values.stands.split(',').map((name) => {
  const stand = allStands.find((candidate) => candidate.name === name);
  if (!stand) throw new Error(`unknown stand ${name}: one of ${allStands.map((s) => s.name).join(', ')}`);
  return stand;
});

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });

// As the other benchmarks do: servers on the last core, this load generator on the others.
const serverCore = String(availableParallelism() - 1);
const pinned = existsSync('/usr/bin/taskset') && availableParallelism() > 1;
if (pinned) {
  execFileSync('taskset', ['-p', '-c', `0-${Number(serverCore) - 1}`, String(process.pid)], {
    stdio: 'ignore',
  });
}
const services = (command: string, env: Record<string, string>) =>
  execFileSync(
    pinned ? 'taskset' : projectFile('scripts/services.sh'),
    pinned ? ['-c', serverCore, projectFile('scripts/services.sh'), command] : [command],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] },
  );

/** An order view as the read model stores it: two lines, an address, about 900 bytes of BSON. */
const orderDocument = (index: number) => {
  const createdAt = new Date(Date.UTC(2026, 10, 1) + index * 60_000).toISOString();
  return {
    _id: `0192f6d2-${String(index).padStart(4, '0')}-7000-8000-${String(index).padStart(12, '0')}`,
    customerId: `customer-${index % 97}`,
    status: ['pending', 'confirmed', 'shipped', 'delivered', 'cancelled'][index % 5] as string,
    items: [
      {
        productId: '1001',
        productName: 'Espresso cup',
        quantity: 2,
        unitPrice: { amountMinor: 1999, currency: 'EUR' },
      },
      {
        productId: '1017',
        productName: 'Milk jug, steel',
        quantity: 1,
        unitPrice: { amountMinor: 2450, currency: 'EUR' },
      },
    ],
    total: { amountMinor: 6448, currency: 'EUR' },
    shippingAddress: { street: `${index} Rue de la Paix`, city: 'Lyon', postalCode: '69001', country: 'FR' },
    payments: [],
    createdAt,
    updatedAt: createdAt,
    revision: 0,
    position: String(index * 5),
  };
};

const percentile = (samples: readonly number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** Runs `sample` up to `count` times, or for `seconds` (at least `minimum` times); its durations in ms. */
const measure = async (
  { count, seconds, minimum }: { count: number; seconds: number; minimum: number },
  sample: (index: number) => Promise<void>,
) => {
  const durations: number[] = [];
  const until = performance.now() + seconds * 1000;
  for (let index = 0; index < count; index += 1) {
    if (index >= minimum && performance.now() > until) break;
    const started = performance.now();
    await sample(index);
    durations.push(performance.now() - started);
  }
  return durations;
};

type Row = { stand: string; size: number; measure: string; p50: number; p99: number; samples: number };

/**
 * Which index PostgreSQL serves FerretDB's `_id` filter with (EXPLAIN), and how often each index of the
 * collection was scanned during the run (pg_stat_user_indexes: FerretDB's pooled connections report their
 * counts when idle, at most 10 s later, so this waits for them).
 */
const postgresEvidence = async (port: number, database: string) => {
  const psql = (sql: string) =>
    execFileSync(
      'psql',
      ['-X', '-At', '-h', '127.0.0.1', '-p', String(port), '-U', 'ferretdb', '-d', 'ferretdb', '-c', sql],
      { encoding: 'utf8' },
    ).trim();
  const table = psql(
    `SELECT _jsonb->>'table' FROM "${database}"._ferretdb_database_metadata WHERE _jsonb->>'_id' = 'order_views'`,
  );
  const id = orderDocument(7)._id;
  const plan = psql(`EXPLAIN SELECT _jsonb FROM "${database}"."${table}" WHERE _jsonb->'_id' @> '"${id}"'`);
  const scansSql = `SELECT indexrelname || ': ' || idx_scan FROM pg_stat_user_indexes WHERE schemaname = '${database}' AND relname = '${table}' ORDER BY idx_scan DESC, indexrelname`;
  let scans = psql(scansSql);
  for (let waited = 0; waited < 15 && !/: [1-9]/.test(scans); waited += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    scans = psql(scansSql);
  }
  return { plan, scans };
};

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(', ');
const loadAtStart = loadAverage();
const rows: Row[] = [];
const evidence: { stand: string; plan: string; scans: string }[] = [];
const database = 'bench_test_stand';
type OrderDocument = ReturnType<typeof orderDocument>;
type Running = {
  stand: Stand;
  env: Record<string, string>;
  stateDir: string;
  postgresPort: number;
  client: MongoClient;
  orders: Collection<OrderDocument>;
  stored: number;
  fresh: number;
};
const running: Running[] = [];
const perRound = {
  count: Math.ceil(samplesWanted / rounds),
  seconds: secondsPerMeasure / rounds,
  minimum: Math.ceil(minimumSamples / rounds),
};
try {
  for (const stand of stands) {
    const stateDir = mkdtempSync(join(tmpdir(), `bench-test-stand-${stand.name}-`));
    // The cluster's owner (postgres, when this runs as root) must reach its directory inside.
    chmodSync(stateDir, 0o755);
    const ferretdbPort = await freePort();
    const postgresPort = await freePort();
    const env = {
      ...stand.env,
      SERVICES_STATE_DIR: stateDir,
      FERRETDB_PORT: String(ferretdbPort),
      POSTGRES_PORT: String(postgresPort),
    };
    process.stdout.write(`=== ${stand.name}: FerretDB on 127.0.0.1:${ferretdbPort}\n`);
    services('ferretdb-start', env);
    const client = await MongoClient.connect(`mongodb://127.0.0.1:${ferretdbPort}/`);
    const db: Db = client.db(database);
    await createMongoOrderReadModel(db); // the collection with the indexes the adapter creates
    const orders = db.collection<OrderDocument>('order_views');
    running.push({ stand, env, stateDir, postgresPort, client, orders, stored: 0, fresh: 1_000_000 });
  }
  for (const size of sizes) {
    for (const stand of running) {
      for (; stand.stored < size; stand.stored += 500) {
        const first = stand.stored;
        await stand.orders.insertMany(
          Array.from({ length: Math.min(500, size - first) }, (_, i) => orderDocument(first + i)),
        );
      }
      stand.stored = size;
    }
    // Round after round, each stand in turn: a busy moment of the machine falls on all of them alike.
    const samples = new Map(
      running.map((stand) => [stand, { lookup: [] as number[], insertThenRead: [] as number[] }]),
    );
    for (let round = 0; round < rounds; round += 1) {
      for (const stand of running) {
        const { orders } = stand;
        const mine = samples.get(stand)!;
        mine.lookup.push(
          ...(await measure(perRound, async (index) => {
            const id = orderDocument((index * 7919 + round * 101) % size)._id;
            if (!(await orders.findOne({ _id: id }))) throw new Error(`order ${id} not found`);
          })),
        );
        const inserted: string[] = [];
        mine.insertThenRead.push(
          ...(await measure(perRound, async () => {
            const document = orderDocument((stand.fresh += 1));
            inserted.push(document._id);
            if (await orders.findOne({ _id: document._id }))
              throw new Error('a new order was found before it was inserted');
            await orders.insertOne(document);
            if (!(await orders.findOne({ _id: document._id })))
              throw new Error('a new order was not found after its insert');
          })),
        );
        await orders.deleteMany({ _id: { $in: inserted } });
      }
    }
    for (const stand of running) {
      const { lookup, insertThenRead } = samples.get(stand)!;
      for (const [name, durations] of [
        ['findOne({_id})', lookup],
        ['insert-then-read', insertThenRead],
      ] as const) {
        const result = { p50: median(durations), p99: percentile(durations, 99), samples: durations.length };
        rows.push({ stand: stand.stand.label, size, measure: name, ...result });
        process.stdout.write(
          `${stand.stand.name} ${size} ${name}: p50 ${figure(result.p50, 2)} ms, p99 ${figure(result.p99, 2)} ms (${result.samples})\n`,
        );
      }
    }
  }
  for (const stand of running) {
    if (stand.stand.name.startsWith('postgresql')) {
      evidence.push({ stand: stand.stand.label, ...(await postgresEvidence(stand.postgresPort, database)) });
    }
  }
} finally {
  for (const stand of running) {
    await stand.client.close();
    services('ferretdb-stop', stand.env);
    rmSync(stand.stateDir, { recursive: true, force: true });
  }
}

const table = markdownTable(
  ['stand', 'documents', 'measure', 'p50 ms', 'p99 ms', 'samples'],
  rows.map((row) => [row.stand, row.size, row.measure, figure(row.p50, 2), figure(row.p99, 2), row.samples]),
);
console.log(`\n${table}`);
for (const { stand, plan, scans } of evidence) console.log(`\n${stand}\n${plan}\n${scans}`);

writeReport(
  values.report,
  `## Test stand

\`npm run bench:test-stands\` (bench/test-stands.ts): the MongoDB-wire stands scripts/services.sh can run,
each started fresh (\`scripts/services.sh ferretdb-start\`, ports and state of its own), measured in the same
run by one client, one request at a time. The \`order_views\` collection is made by the MongoDB order read
model (so with its indexes) and filled with order views of two lines (about 900 bytes); at each size,
\`findOne({_id})\` of a stored order, and insert-then-read: the reader's \`findOne\` misses, the order is
inserted, the next \`findOne\` hits (the store's part of 201-to-readable). The stands run side by side and
take turns, ${rounds} rounds at each size, so that a busy moment of the machine falls on all of them; up to
${samplesWanted} samples per row, or ${secondsPerMeasure} s (at least ${minimumSamples}), over the rounds.${pinned ? ' The stands ran on the last core, the client on the others.' : ''}
Load average ${loadAtStart} at the start, ${loadAverage()} at the end: the machine is shared, so read the
stands against each other more than the absolute figures.

${table}

Which index served FerretDB's \`_jsonb->'_id' @> '"…"'\` (EXPLAIN, and each index's scans over the run):

${evidence.map(({ stand, plan, scans }) => `${stand}:\n\n\`\`\`\n${plan}\n\n${scans}\n\`\`\``).join('\n\n')}

The \`_id_\` btree's scans are FerretDB's deletes and updates by \`_id\`, which it sends as \`=\` or \`IN\`, and
which a btree serves; its equality filters (\`@>\`) only the GIN twin can serve.`,
);
