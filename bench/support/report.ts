// What a benchmark leaves for BENCHMARKS.md: with `--report FILE` it writes its section there as Markdown
// (bench/run-all.ts puts the sections together); without, it only prints to the console.
import { readFileSync, writeFileSync } from 'node:fs';
import type { LoadResult } from './processes.ts';

export const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The `--report` option of parseArgs. */
export const reportOption = { report: { type: 'string' } } as const;

export const writeReport = (file: string | undefined, markdown: string) => {
  if (file !== undefined) writeFileSync(file, `${markdown.trim()}\n`);
};

/** 12345.6 -> "12,346"; a number with `digits` decimals when asked. */
export const figure = (value: number, digits = 0) =>
  value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export const markdownTable = (header: readonly string[], rows: readonly (readonly (string | number)[])[]) =>
  [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, index) => (index === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map(
      (row) => `| ${row.map((cell) => (typeof cell === 'number' ? figure(cell) : cell)).join(' | ')} |`,
    ),
  ].join('\n');

/** Resident memory of a process now and its high-water mark, in MB (Linux /proc). */
export const memoryOf = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
};

/**
 * The service beside its bare node:http baseline, case by case: medians of the rounds, the service's
 * requests/s as a share of the baseline's, and the server CPU each request took.
 */
export const loadComparison = (
  cases: readonly { name: string; bare: readonly LoadResult[]; service: readonly LoadResult[] }[],
) =>
  markdownTable(
    [
      'case',
      'requests/s (median)',
      'of bare',
      'p50 ms',
      'p99 ms',
      'server CPU µs/request',
      'rounds (requests/s)',
      'unexpected answers or errors',
    ],
    cases.flatMap(({ name, bare, service }) => {
      const row = (label: string, runs: readonly LoadResult[], share: string) => [
        label,
        median(runs.map((run) => run.requestsPerSecond)),
        share,
        median(runs.map((run) => run.p50)),
        median(runs.map((run) => run.p99)),
        median(runs.map((run) => run.cpuMicrosPerRequest)),
        runs.map((run) => figure(run.requestsPerSecond)).join(' '),
        runs.reduce((sum, run) => sum + run.unexpected + run.errors, 0),
      ];
      const ratio =
        median(service.map((run) => run.requestsPerSecond)) /
        median(bare.map((run) => run.requestsPerSecond));
      return [
        row(`bare ${name}`, bare, ''),
        row(`**service ${name}**`, service, `**${Math.round(ratio * 100)} %**`),
      ];
    }),
  );
