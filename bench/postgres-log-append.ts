// The PostgreSQL event log's appends (issue 40), beside raw INSERTs of the same rows by the same client
// (postgres.js, the store's own connection options) in the same run: 16 appenders at once (a pool of 16),
// each appending single events to streams of its own, one statement (one implicit transaction) per event.
// Between the two, the steps of the store's append one at a time, to show what each costs:
//   raw INSERT -> the events as one JSON parameter (json_to_recordset, what an append of several events
//   sends) -> the store's whole statement for one event (plain parameters; the compare-and-set on the events'
//   unique (stream_id, revision) index, RETURNING the position) -> the store
//   (that statement and its NOTIFY, on a connection of its own, after the commit); and the first design's
//   compare-and-set on a streams row, which the store replaced, to show what that replacement bought.
// Each case has tables of its own in one fresh database, emptied before each of its runs; the cases
// alternate round after round; medians.
// Run: npm run bench:event-store:postgres (after `eval "$(scripts/services.sh env)"`)
// Options: --events N (per case and round) --appenders N --rounds N --report FILE --goals FILE
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import postgres, { type Sql } from 'postgres';
import { NO_STREAM, type EventToAppend } from '../infrastructure/event-store/event-store.ts';
import { clientOptions } from '../infrastructure/event-store/postgres/postgres-connection.ts';
import { createPostgresEventStore } from '../infrastructure/event-store/postgres/postgres-event-store.ts';
import { atLeast, goalsOption, ratio, writeGoals } from './support/goals.ts';
import { averageEventBytes, eventsPerStream, orderEvent } from './support/order-events.ts';
import { createLogDatabase, requiredEventLogUrl } from './support/postgres-log.ts';
import { figure, markdownTable, median, reportOption, writeReport } from './support/report.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '20000' },
    appenders: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
    ...reportOption,
    ...goalsOption,
  },
});
const eventCount = Number(values.events);
const appenders = Number(values.appenders);
const rounds = Number(values.rounds);
const perAppender = Math.ceil(eventCount / appenders);

const database = await createLogDatabase(requiredEventLogUrl());
const connection = { url: database.url, poolSize: appenders, statementTimeoutMs: 10_000 };
const store = await createPostgresEventStore({ ...connection, applicationName: 'bench-log-store' });
const sql: Sql = postgres(database.url, clientOptions(connection, 'bench-log-raw'));
const settings = await sql`SELECT current_setting('server_version') AS version,
  current_setting('synchronous_commit') AS synchronous_commit, current_setting('fsync') AS fsync`;
const server = settings[0]!;

// Tables of the log's own shape (identity, defaults, unique and log-order indexes), one set per case.
await sql`SET client_min_messages = warning`;
for (const schema of ['bench_raw', 'bench_recordset', 'bench_cas', 'bench_statement']) {
  await sql.unsafe(`CREATE SCHEMA ${schema}`);
  await sql.unsafe(`CREATE TABLE ${schema}.events (LIKE event_log.events INCLUDING ALL)`);
  // Only the first design's case uses it: one row per stream holding its revision.
  await sql.unsafe(`CREATE TABLE ${schema}.streams (stream_id text PRIMARY KEY, revision bigint NOT NULL)`);
}

const asJson = (value: unknown) => JSON.stringify(value);
/** The events as the store sends them: one JSON array. */
const recordset = (events: readonly EventToAppend[]) =>
  asJson(events.map(({ id, type, data, metadata }) => ({ id, type, data, metadata })));

/** The store's append statement (postgres-event-store.ts), on the tables of `schema`. */
const storeStatement = (schema: string, streamId: string, revision: number, event: EventToAppend) => {
  const events = sql(`${schema}.events`);
  const streamIsAtExpected =
    revision === 0
      ? sql`TRUE`
      : sql`EXISTS (SELECT FROM ${events} WHERE stream_id = ${streamId} AND revision = ${revision - 1})`;
  // A single event's append, as the store sends it: plain parameters (several events go as one JSON array).
  return sql`
    INSERT INTO ${events} (stream_id, revision, id, type, data, metadata)
    SELECT ${streamId}, ${revision}::bigint, ${event.id}, ${event.type}, ${asJson(event.data)}::text::json,
      ${asJson(event.metadata)}::text::json WHERE ${streamIsAtExpected}
    RETURNING transaction_id::text AS tx, position::text AS pos`;
};

type Append = (streamId: string, revision: number, event: EventToAppend) => Promise<unknown>;
type Case = { name: string; short: string; schema: string; append: Append };

const cases: Case[] = [
  {
    name: 'raw INSERT, one row per statement',
    short: 'raw INSERT',
    schema: 'bench_raw',
    append: (streamId, revision, { id, type, data, metadata }) =>
      sql`INSERT INTO bench_raw.events (stream_id, revision, id, type, data, metadata)
          VALUES (${streamId}, ${revision}, ${id}, ${type}, ${asJson(data)}::json, ${asJson(metadata)}::json)`,
  },
  {
    name: '+ the events as one JSON parameter (json_to_recordset)',
    short: '+ json_to_recordset',
    schema: 'bench_recordset',
    append: (streamId, revision, event) =>
      sql`INSERT INTO bench_recordset.events (stream_id, revision, id, type, data, metadata)
          SELECT ${streamId}, ${revision} + e.ordinality - 1, e.id, e.type, e.data, e.metadata
          FROM ROWS FROM (json_to_recordset(${recordset([event])}::text::json)
               AS (id text, type text, data json, metadata json)) WITH ORDINALITY
               AS e(id, type, data, metadata, ordinality)`,
  },
  {
    name: "the first design: the stream's revision compare-and-set on a streams row (a CTE), no RETURNING",
    short: 'streams-row CAS (replaced)',
    schema: 'bench_cas',
    append: (streamId, revision, event) => {
      const claim =
        revision === 0
          ? sql`INSERT INTO bench_cas.streams (stream_id, revision) VALUES (${streamId}, ${revision})
                ON CONFLICT DO NOTHING RETURNING 1`
          : sql`UPDATE bench_cas.streams SET revision = ${revision}
                WHERE stream_id = ${streamId} AND revision = ${revision - 1} RETURNING 1`;
      return sql`WITH claimed AS (${claim})
        INSERT INTO bench_cas.events (stream_id, revision, id, type, data, metadata)
        SELECT ${streamId}, ${revision} + e.ordinality - 1, e.id, e.type, e.data, e.metadata
        FROM ROWS FROM (json_to_recordset(${recordset([event])}::text::json)
             AS (id text, type text, data json, metadata json)) WITH ORDINALITY
             AS e(id, type, data, metadata, ordinality)
        WHERE EXISTS (SELECT FROM claimed)`;
    },
  },
  {
    name: "the store's whole statement (+ RETURNING the position), sent by the bench",
    short: "store's statement",
    schema: 'bench_statement',
    append: (streamId, revision, event) => storeStatement('bench_statement', streamId, revision, event),
  },
  {
    name: 'the store: appendToStream (that statement, then a NOTIFY on a connection of its own)',
    short: 'store',
    schema: 'event_log',
    append: (streamId, revision, event) =>
      store.appendToStream(streamId, [event], {
        expectedRevision: revision === 0 ? NO_STREAM : revision - 1,
      }),
  },
];

type Run = { perSecond: number; clientCpuMicros: number };

/** `appenders` at once, each appending its events one at a time to streams of its own, 5 events each. */
const runCase = async ({ schema, append }: Case, round: number): Promise<Run> => {
  // The store's own schema (event_log) has no streams table.
  const tables = schema === 'event_log' ? `${schema}.events` : `${schema}.events, ${schema}.streams`;
  await sql.unsafe(`TRUNCATE ${tables} RESTART IDENTITY`);
  // The rows before the clock starts: each appender's events, the same in every case.
  const rows = Array.from({ length: appenders }, (_, appender) =>
    Array.from({ length: perAppender }, (_, n) => ({
      streamId: `r${round}-a${appender}-s${Math.floor(n / eventsPerStream)}`,
      revision: n % eventsPerStream,
      event: orderEvent(n),
    })),
  );
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    rows.map(async (mine) => {
      for (const { streamId, revision, event } of mine) await append(streamId, revision, event);
    }),
  );
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const count = appenders * perAppender;
  return { perSecond: Math.round((count / ms) * 1000), clientCpuMicros: Math.round((user + system) / count) };
};

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3);
const loadAtStart = loadAverage();

// A warm-up of every case (connections, plans, the tables' first pages), then the rounds.
for (const benchCase of cases) await runCase(benchCase, -1);
const runs = new Map<string, Run[]>(cases.map((c) => [c.name, []]));
for (let round = 0; round < rounds; round++) {
  for (const benchCase of cases) runs.get(benchCase.name)!.push(await runCase(benchCase, round));
  console.log(
    `round ${round + 1}: ${cases.map((c) => `${c.short} ${figure(runs.get(c.name)!.at(-1)!.perSecond)}/s`).join(', ')}`,
  );
}
const loadAtEnd = loadAverage();

await sql.end({ timeout: 5 });
await store.close();
await database.drop();

const medianRate = (name: string) => median(runs.get(name)!.map((run) => run.perSecond));
const raw = medianRate(cases[0]!.name);
const storeRate = medianRate(cases.at(-1)!.name);
const rows = cases.map((c) => [
  c === cases.at(-1) ? `**${c.name}**` : c.name,
  medianRate(c.name),
  `${ratio(medianRate(c.name) / raw)} x`,
  median(runs.get(c.name)!.map((run) => run.clientCpuMicros)),
  runs
    .get(c.name)!
    .map((run) => figure(run.perSecond))
    .join(' '),
]);
const header = ['case', 'events/s (median)', 'of raw', 'client CPU µs/event', 'rounds (events/s)'];
const context =
  `PostgreSQL ${String(server['version'])} of scripts/services.sh (synchronous_commit=${String(server['synchronous_commit'])}, ` +
  `fsync=${String(server['fsync'])}), node ${process.version}, ${appenders} appenders (a pool of ${appenders}), ` +
  `${figure(appenders * perAppender)} single-event appends per case and round, ~${averageEventBytes} bytes/event, ` +
  `${rounds} rounds; load average ${loadAtStart.join(', ')} at the start, ${loadAtEnd.join(', ')} at the end`;
console.log(context);
console.table(
  Object.fromEntries(
    rows.map(([name, ...rest]) => [
      String(name).replaceAll('*', ''),
      Object.fromEntries(header.slice(1).map((h, i) => [h, rest[i]])),
    ]),
  ),
);
const storeRatio = storeRate / raw;
console.log(
  `PostgreSQL log, single appends: ${figure(storeRate)}/s, ${ratio(storeRatio)} x raw INSERTs (${figure(raw)}/s); goal >= 0.7`,
);

writeGoals(values.goals, [
  {
    issue: 40,
    order: 1,
    path: `PostgreSQL log: single-event appends/s, ${appenders} appenders to distinct streams`,
    today: 'new (no PostgreSQL log before)',
    checks: [atLeast('of raw INSERTs, same client, pool and rows, one transaction each', storeRatio, 0.7)],
    detail:
      `${figure(storeRate)}/s against ${figure(raw)}/s (medians of ${rounds} rounds of ${figure(appenders * perAppender)} ` +
      `appends; store ${runs
        .get(cases.at(-1)!.name)!
        .map((run) => figure(run.perSecond))
        .join(' ')}, raw ` +
      `${runs
        .get(cases[0]!.name)!
        .map((run) => figure(run.perSecond))
        .join(' ')}); the steps between, and the alternative without the streams row: ` +
      cases
        .slice(1, -1)
        .map((c) => `${c.short} ${ratio(medianRate(c.name) / raw)}`)
        .join(', '),
  },
]);

writeReport(
  values.report,
  `## PostgreSQL event log: appends (issue 40)

\`npm run bench:event-store:postgres\` (bench/postgres-log-append.ts): the five events of an order's lifecycle,
appended one event per append by ${appenders} appenders at once, each to streams of its own, through the store
(\`createPostgresEventStore\`, a pool of ${appenders}) on a fresh database of the PostgreSQL of scripts/services.sh.
The baseline, raw INSERT, is the same client with the same options and pool sending the same rows, one INSERT
(one implicit transaction) each, into a table of the log's own shape (\`LIKE event_log.events INCLUDING ALL\`).
Between them, the steps of the store's statement one at a time (its compare-and-set is the events' unique
(stream_id, revision) index), and the first design's compare-and-set on a streams row, which it replaced.
${context}. Cases alternate, each on its own tables emptied before each run; medians.

${markdownTable(header, rows)}

**The store at ${ratio(storeRatio)} of raw INSERTs** (issue 40's goal: at least 0.7).`,
);
