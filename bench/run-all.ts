// Every benchmark, one after the other, each in its own process, then BENCHMARKS.md written from what they
// measured: the machine and Node version, issue 31's goals table (the embedded default) and, where the
// distributed mode's servers are set (MONGODB_URL and KAFKA_BROKERS), issue 30's (the distributed mode) and,
// with EVENT_LOG_URL too, issue 40's (the distributed mode on the PostgreSQL event log, the shared node:sqlite
// file beside it), all gathered from the rows the benchmarks write with --goals and printed at the end of the run; each
// benchmark's section (its figures beside the baseline it measured in the same run), the distributed mode's
// where its servers are set, and bench/NOTES.md (profiles, what changed the figures, and why).
// Run: npm run bench   Options: --quick (short runs, to try the suite) --out FILE (default BENCHMARKS.md)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  goalsTable,
  printGoals,
  readGoals,
  withMissingRows,
  type GoalIssue,
  type GoalRow,
} from './support/goals.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: 'BENCHMARKS.md' },
  },
});
const projectFile = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const distributed = Boolean(process.env['MONGODB_URL'] && process.env['KAFKA_BROKERS']);
// The distributed sections run on the PostgreSQL log (a fresh database each) with the shared node:sqlite file
// beside it, where EVENT_LOG_URL is set; on the shared file alone where it is not.
const postgresLog = Boolean(process.env['EVENT_LOG_URL']);
const logArgs = postgresLog ? [] : ['--log', 'sqlite-file'];

const quick = (args: string[]) => (values.quick ? args : []);
// `goals`: the benchmark writes rows of a goals table (--goals FILE): issue 31's, or issue 30's and 40's for
// the distributed sections.
const benchmarks: { name: string; script: string; args: string[]; goals?: boolean }[] = [
  {
    name: 'event-store',
    script: 'bench/event-store-append.ts',
    args: quick(['--single', '5000', '--batched', '50000', '--rounds', '1']),
  },
  // GET /orders/{id}, POST /orders and GET /products/{id} (200, 304) beside bare, their ceilings and the
  // Emmett peer (bench:products's bare-against-service comparison is part of it).
  { name: 'hot-paths', script: 'bench/hot-paths.ts', args: quick(['--quick']), goals: true },
  {
    name: 'orders',
    script: 'bench/orders-http.ts',
    args: quick(['--rounds', '1', '--duration', '3', '--visibility', '200']),
    goals: true,
  },
  { name: 'replay', script: 'bench/replay.ts', args: quick(['--orders', '20000']), goals: true },
  { name: 'webhooks', script: 'bench/webhooks.ts', args: quick(['--duration', '5']), goals: true },
  // Issue 40's first row: the PostgreSQL log's appends beside raw INSERTs (a fresh database of its own).
  ...(postgresLog
    ? [
        {
          name: 'event-store-postgres',
          script: 'bench/postgres-log-append.ts',
          args: quick(['--events', '4000', '--rounds', '1']),
          goals: true,
        },
      ]
    : []),
  ...(distributed
    ? [
        // The MongoDB-wire stands side by side (it starts its own, beside the servers of MONGODB_URL).
        {
          name: 'test-stands',
          script: 'bench/test-stands.ts',
          args: quick(['--sizes', '500,2000', '--lookups', '50', '--seconds', '3']),
        },
        // Issue 30's goals: POST /orders beside the embedded default in the same rounds, 201 to readable
        // with about 1,000 and about 20,000 orders in the read model, 3 rounds of 1,000 orders at each
        // (the script's defaults); issue 40's: the same on the shared file's stand beside it.
        {
          name: 'orders-distributed',
          script: 'bench/orders-http.ts',
          args: [
            '--mode',
            'distributed',
            ...logArgs,
            ...quick([
              '--rounds',
              '1',
              '--duration',
              '3',
              '--visibility',
              '100',
              '--visibility-rounds',
              '1',
              '--large-orders',
              '5000',
            ]),
          ],
          goals: true,
        },
        // 50 orders/s x 3 subscribers for 30 s, 3 rounds.
        {
          name: 'webhooks-distributed',
          script: 'bench/webhooks.ts',
          args: [
            '--mode',
            'distributed',
            ...logArgs,
            '--rate',
            '50',
            ...(values.quick ? ['--duration', '5', '--rounds', '1'] : ['--duration', '30', '--rounds', '3']),
          ],
          goals: true,
        },
      ]
    : []),
];

const reports = mkdtempSync(join(tmpdir(), 'bench-reports-'));
const goalsFile = join(reports, 'goals.jsonl');
const sections: string[] = [];
const failed: string[] = [];
const loadAtStart = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(', ');
for (const { name, script, args, goals } of benchmarks) {
  const report = join(reports, `${name}.md`);
  process.stdout.write(`\n=== ${name}: node ${script} ${args.join(' ')}\n`);
  const started = performance.now();
  try {
    execFileSync(
      process.execPath,
      [projectFile(script), ...args, '--report', report, ...(goals ? ['--goals', goalsFile] : [])],
      { stdio: 'inherit' },
    );
  } catch (error) {
    // One benchmark that fails (a server shedding load on a busy machine, say) leaves the others' figures.
    failed.push(name);
    process.stdout.write(`=== ${name} failed: ${String(error).split('\n')[0]}\n`);
    sections.push(`## ${name}\n\n\`node ${script}\` failed in this run: see its output.`);
    continue;
  }
  process.stdout.write(`=== ${name}: ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  sections.push(readFileSync(report, 'utf8'));
}
// Issue 30's table only where the distributed sections ran, issue 40's where they ran on the PostgreSQL log.
const goalTables: { issue: GoalIssue; rows: GoalRow[] }[] = [
  { issue: 31, rows: withMissingRows(readGoals(goalsFile, 31), 31) },
  ...(distributed ? [{ issue: 30 as const, rows: withMissingRows(readGoals(goalsFile, 30), 30) }] : []),
  ...(distributed && postgresLog
    ? [{ issue: 40 as const, rows: withMissingRows(readGoals(goalsFile, 40), 40) }]
    : []),
];
rmSync(reports, { recursive: true, force: true });
const loadAtEnd = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(', ');

for (const { issue, rows } of goalTables) {
  process.stdout.write(
    `\n=== issue ${issue}'s goals (load average ${loadAtStart} at the start, ${loadAtEnd} at the end)\n`,
  );
  printGoals(rows, issue);
}
const today = new Date().toISOString().slice(0, 10);
const details = (rows: readonly GoalRow[]) =>
  rows
    .filter((row) => row.detail)
    .map((row) => `- ${row.path}: ${row.detail}.`)
    .join('\n');
const issue40Section = (
  rows: readonly GoalRow[],
) => `## Issue 40's goals (the distributed mode on the PostgreSQL event log)

Gathered from the sections below (same run, this machine, medians of 3 rounds), ${today}, load average
${loadAtStart} at the start of the run and ${loadAtEnd} at its end. Every figure is the PostgreSQL log's
beside a baseline of the same run: raw INSERTs of the same rows by the same client for the appends, and for
the rest the same four processes on the shared node:sqlite file (the single-host baseline), started beside
them, their rounds taking turns.

${goalsTable(rows, 40)}

${details(rows)}`;
const goalsSections = goalTables.map(({ issue, rows }) =>
  issue === 40
    ? issue40Section(rows)
    : issue === 31
      ? `## Issue 31's goals

Gathered from the sections below (same run, pinned as they say, medians of the rounds), ${today}, load
average ${loadAtStart} at the start of the run and ${loadAtEnd} at its end. "Today" is what the issue measured
before its work began. The ratios to the ceilings and the peer are the service's requests/s over theirs;
"of bare" is over the bare node:http server's.

${goalsTable(rows, 31)}

${details(rows)}`
      : `## Issue 30's goals (distributed mode)

Gathered from the distributed sections below (same run, this machine, medians of the rounds), ${today}, on
the servers of MONGODB_URL and KAFKA_BROKERS. "Today" is what the issue measured before its work began.
POST /orders is the command API's requests/s over the embedded default's, measured in the same rounds; its
"by CPU" figure is the embedded process's CPU per request over the command API's alone (what one core per
process would allow). The MongoDB command budgets are not a benchmark's: tests assert them.

${goalsTable(rows, 30)}

${details(rows)}`,
);

const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
const header = `# Benchmarks

Written by \`npm run bench\` (bench/run-all.ts) on ${new Date().toISOString().slice(0, 10)}${values.quick ? ', with --quick (short runs: read the figures as a smoke test)' : ''}:
${cpus().length} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GB, Linux ${release()}, Node ${process.version} (the version
pinned in package.json). The machine is noisy: every figure stands beside a baseline measured in the same run
(a bare node:http server doing the least the same request needs, or raw node:sqlite), baseline and service
alternate round after round, and medians are reported. Each section names the command that reruns it alone.

Rerun everything: \`npm run bench\` (about 15 minutes; \`npm run bench -- --quick\` in about 3). For the
distributed mode's sections, start its servers first: \`scripts/services.sh start && eval "$(scripts/services.sh env)"\`.
`;
const skipped = distributed
  ? []
  : [
      `## Distributed mode

Not measured in this run: MONGODB_URL and KAFKA_BROKERS were not set. Start the servers of
scripts/services.sh (FerretDB and Kafka) and export their addresses, then rerun \`npm run bench\`.`,
    ];
const notes = readFileSync(projectFile('bench/NOTES.md'), 'utf8');
writeFileSync(
  values.out,
  [header, ...goalsSections, ...sections, ...skipped, notes].map((part) => part.trim()).join('\n\n') + '\n',
);
process.stdout.write(`\nwrote ${values.out}\n`);
if (failed.length > 0) {
  process.stdout.write(`failed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
