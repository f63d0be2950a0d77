// The goals tables of issue 31 (the embedded default) and issue 30 (the distributed mode). Each benchmark
// that measures a row writes it (--goals FILE, JSON lines); run-all.ts gathers them, prints each table and
// puts it in BENCHMARKS.md. A row carries the issue's "today" beside this run's figures and, for each goal,
// whether it was met.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { markdownTable } from './report.ts';

export type GoalCheck = {
  /** What is compared, as the issue words it: "of its ceiling with the log line", "of bare", "x the Emmett peer". */
  what: string;
  /** The goal, e.g. ">= 0.8". */
  goal: string;
  /** This run's figure, as printed (e.g. "0.47", "1.9x", "17.1 ms"). */
  now: string;
  met: boolean | undefined;
  /** Shown instead of met / not met / ?, for a goal this run does not measure (one a test asserts). */
  status?: string;
  /**
   * The same ratio by server CPU time per request (the other's µs over the service's), where there is one:
   * steadier than requests/s when other work shares the machine, since the load generator's own core
   * then slows every server alike.
   */
  byCpu?: string;
};

/** The issue whose goals table a row belongs to. */
export type GoalIssue = 30 | 31 | 40;

export type GoalRow = {
  /** The issue's table; 31 when absent (the rows written before issue 30's table). */
  issue?: GoalIssue;
  /** Sort key: the issue's order. */
  order: number;
  path: string;
  /** The issue's "today" column. */
  today: string;
  checks: GoalCheck[];
  /** Measured figures behind the ratios (requests/s, µs of CPU per request, ms). */
  detail: string;
};

/** The `--goals` option of parseArgs. */
export const goalsOption = { goals: { type: 'string' } } as const;

export const writeGoals = (file: string | undefined, rows: readonly GoalRow[]) => {
  if (file === undefined) return;
  for (const row of rows) appendFileSync(file, `${JSON.stringify(row)}\n`);
};

const issueOf = (row: GoalRow): GoalIssue => row.issue ?? 31;

/** The rows of one issue's table written to `file` (issue 31's by default), in the issue's order. */
export const readGoals = (file: string, issue: GoalIssue = 31): GoalRow[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as GoalRow)
        .filter((row) => issueOf(row) === issue)
        .sort((a, b) => a.order - b.order)
    : [];

type ExpectedRow = Pick<GoalRow, 'order' | 'path' | 'today'> & Partial<Pick<GoalRow, 'checks' | 'detail'>>;

/**
 * Every row of issue 31's table, by its order: what run-all shows when a benchmark did not write it.
 * (issue30GoalRows below is issue 30's.)
 */
export const expectedGoalRows: readonly ExpectedRow[] = [
  { order: 1, path: 'GET /orders/{id}', today: '0.45 of that ceiling, 0.22 of bare' },
  { order: 2, path: 'POST /orders', today: '0.38 of that ceiling, 0.15 of bare' },
  { order: 3, path: 'GET /products/{id}, 200', today: '0.63 of bare' },
  { order: 4, path: 'GET /products/{id}, 304', today: '0.42 of bare' },
  { order: 5, path: 'projections:rebuild', today: '0.78' },
  { order: 6, path: 'first start, only the order read model checkpointed', today: '39 s, about 4x' },
  { order: 7, path: 'memory under the orders load', today: '496 MB' },
  { order: 8, path: 'embedded: 201 to readable', today: '17.6 ms' },
  { order: 9, path: 'embedded: command to webhook', today: '38 ms' },
];

/**
 * Issue 30's table ("same run, this machine; medians of 3 rounds"), written by the distributed sections:
 * orders-http.ts --mode distributed (rows 1 and 2) and webhooks.ts --mode distributed (row 3). Row 4 is
 * not a benchmark's: the command budgets are asserted by tests that CI runs against its real servers.
 */
export const issue30GoalRows: readonly ExpectedRow[] = [
  {
    order: 1,
    path: 'distributed: 201 to readable, p99, with 1,000 and with 20,000 orders in the read model',
    today: '588 ms at ~9,900 orders, growing with the data',
  },
  {
    order: 2,
    path: 'distributed: POST /orders, requests/s',
    today: '334/s against ~2,300/s (0.15)',
  },
  {
    order: 3,
    path: 'distributed: command to webhook, 50 orders/s x 3 subscribers for 30 s',
    today: '10 orders/s: p99 77 ms; 50/s falls behind',
  },
  {
    order: 4,
    path: 'distributed: MongoDB commands per operation',
    today: '3 / 1 / 4 per event / 8.7 per delivery',
    checks: [
      {
        what: "counted with the driver's command monitoring",
        goal: 'POST /orders <= 1, GET /orders/{id} 1, a projections batch one write per read model + 1 checkpoint, a delivery <= 3',
        now: 'not measured by the benchmarks',
        met: undefined,
        status: "asserted in CI's integration step",
      },
    ],
    detail:
      'asserted by test/distributed/round-trips.e2e.spec.ts and test/integration/dispatcher-round-trips.int.spec.ts ' +
      '(npm run test:integration, which CI runs against FerretDB and Kafka)',
  },
];

/**
 * Issue 40's table (the distributed mode on the PostgreSQL event log, beside the shared node:sqlite file it
 * replaces; same run, this machine, medians of 3 rounds): postgres-log-append.ts (row 1), orders-http.ts
 * --mode distributed (rows 2 and 3) and webhooks.ts --mode distributed (row 4), each measuring both logs.
 */
export const issue40GoalRows: readonly ExpectedRow[] = [
  {
    order: 1,
    path: 'PostgreSQL log: single-event appends/s, 16 appenders to distinct streams',
    today: 'new (no PostgreSQL log before)',
  },
  {
    order: 2,
    path: 'distributed on the PostgreSQL log: POST /orders, requests/s',
    today: 'the shared file only',
  },
  {
    order: 3,
    path: 'distributed on the PostgreSQL log: 201 to readable, p99, at 1,000 and at 20,000 orders',
    today: 'shared file: p99 49.9 ms (2026-11-27, polled every 10 ms)',
  },
  {
    order: 4,
    path: 'distributed on the PostgreSQL log: command to webhook, 50 orders/s x 3 subscribers for 30 s',
    today: 'the shared file only',
  },
];

const expectedRows: Record<GoalIssue, readonly ExpectedRow[]> = {
  31: expectedGoalRows,
  30: issue30GoalRows,
  40: issue40GoalRows,
};

/** The rows written, and for each one missing its expected row (by default "not measured in this run"). */
export const withMissingRows = (rows: readonly GoalRow[], issue: GoalIssue = 31): GoalRow[] =>
  [
    ...rows,
    ...expectedRows[issue]
      .filter(({ order }) => !rows.some((row) => row.order === order))
      .map(({ checks, detail, ...row }) => ({
        ...(issue === 31 ? {} : { issue }),
        ...row,
        checks: checks ?? [{ what: 'not measured in this run', goal: '', now: '', met: undefined }],
        detail: detail ?? '',
      })),
  ].sort((a, b) => a.order - b.order);

export const ratio = (value: number, digits = 2) => value.toFixed(digits);

/** At least `goal`, as a check. */
export const atLeast = (
  what: string,
  value: number,
  goal: number,
  suffix = '',
  byCpu?: number,
): GoalCheck => ({
  what,
  goal: `>= ${goal}${suffix}`,
  now: `${ratio(value)}${suffix}`,
  met: Number.isFinite(value) ? value >= goal : undefined,
  ...(byCpu === undefined ? {} : { byCpu: `${ratio(byCpu)}${suffix}` }),
});

/** At most `goal`, as a check. */
export const atMost = (what: string, value: number, goal: number, unit: string, digits = 1): GoalCheck => ({
  what,
  goal: `<= ${goal} ${unit}`.trim(),
  now: `${value.toFixed(digits)} ${unit}`.trim(),
  met: Number.isFinite(value) ? value <= goal : undefined,
});

/** Below `goal`, as a check. */
export const below = (what: string, value: number, goal: number, unit: string, digits = 1): GoalCheck => ({
  what,
  goal: `< ${goal} ${unit}`.trim(),
  now: `${value.toFixed(digits)} ${unit}`.trim(),
  met: Number.isFinite(value) ? value < goal : undefined,
});

const mark = ({ met, status }: GoalCheck) => status ?? (met === undefined ? '?' : met ? 'met' : 'not met');

/** One line per check: path, what, goal, today (the issue's), now, met. */
export const goalsTable = (rows: readonly GoalRow[], issue: GoalIssue = 31) =>
  markdownTable(
    ['path', 'compared with', 'goal', `today (issue ${issue})`, 'this run', '', 'by CPU µs/request'],
    rows.flatMap((row) =>
      row.checks.map((check, index) => [
        index === 0 ? row.path : '',
        check.what,
        check.goal,
        index === 0 ? row.today : '',
        check.now,
        mark(check),
        check.byCpu ?? '',
      ]),
    ),
  );

/** The same for a terminal. */
export const printGoals = (rows: readonly GoalRow[], issue: GoalIssue = 31) => {
  const lines = rows.flatMap((row) =>
    row.checks.map((check, index) => ({
      path: index === 0 ? row.path : '',
      'compared with': check.what,
      goal: check.goal,
      [`today (issue ${issue})`]: index === 0 ? row.today : '',
      'this run': check.now,
      '': mark(check),
      'by CPU µs/request': check.byCpu ?? '',
    })),
  );
  console.table(lines);
  for (const row of rows) if (row.detail) console.log(`${row.path}: ${row.detail}`);
};
