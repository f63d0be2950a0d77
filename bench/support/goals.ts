// Issue 31's goals table. Each benchmark that measures a row writes it (--goals FILE, JSON lines); run-all.ts
// gathers them, prints the table and puts it in BENCHMARKS.md. A row carries the "today" beside
// this run's figures and, for each goal, whether it was met.
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
  /**
   * The same ratio by server CPU time per request (the other's µs over the service's), where there is one:
   * steadier than requests/s when other work shares the machine, since the load generator's own core
   * then slows every server alike.
   */
  byCpu?: string;
};

export type GoalRow = {
  /** Sort key: the order. */
  order: number;
  path: string;
  /** The "today" column. */
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

export const readGoals = (file: string): GoalRow[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as GoalRow)
        .sort((a, b) => a.order - b.order)
    : [];

/** Every row of the table, by its order: what run-all shows when a benchmark did not write it. */
export const expectedGoalRows: readonly Pick<GoalRow, 'order' | 'path' | 'today'>[] = [
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

/** The rows written, and a row "not measured" for each one missing. */
export const withMissingRows = (rows: readonly GoalRow[]): GoalRow[] =>
  [
    ...rows,
    ...expectedGoalRows
      .filter(({ order }) => !rows.some((row) => row.order === order))
      .map((row) => ({
        ...row,
        checks: [{ what: 'not measured in this run', goal: '', now: '', met: undefined }],
        detail: '',
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

const mark = (met: boolean | undefined) => (met === undefined ? '?' : met ? 'met' : 'not met');

/** One line per check: path, what, goal, today (the issue's), now, met. */
export const goalsTable = (rows: readonly GoalRow[]) =>
  markdownTable(
    ['path', 'compared with', 'goal', 'today (issue 31)', 'this run', '', 'by CPU µs/request'],
    rows.flatMap((row) =>
      row.checks.map((check, index) => [
        index === 0 ? row.path : '',
        check.what,
        check.goal,
        index === 0 ? row.today : '',
        check.now,
        mark(check.met),
        check.byCpu ?? '',
      ]),
    ),
  );

/** The same for a terminal. */
export const printGoals = (rows: readonly GoalRow[]) => {
  const lines = rows.flatMap((row) =>
    row.checks.map((check, index) => ({
      path: index === 0 ? row.path : '',
      'compared with': check.what,
      goal: check.goal,
      'today (issue 31)': index === 0 ? row.today : '',
      'this run': check.now,
      '': mark(check.met),
      'by CPU µs/request': check.byCpu ?? '',
    })),
  );
  console.table(lines);
  for (const row of rows) if (row.detail) console.log(`${row.path}: ${row.detail}`);
};
