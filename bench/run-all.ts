// Every benchmark, one after the other, each in its own process, then BENCHMARKS.md written from what they
// measured: the machine and Node version, each benchmark's section (its figures beside the baseline it
// measured in the same run), the distributed mode's where its servers are set (MONGODB_URL and
// KAFKA_BROKERS), and bench/NOTES.md (profiles, what changed the figures, and why).
// Run: npm run bench   Options: --quick (short runs, to try the suite) --out FILE (default BENCHMARKS.md)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: 'BENCHMARKS.md' },
  },
});
const projectFile = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const distributed = Boolean(process.env['MONGODB_URL'] && process.env['KAFKA_BROKERS']);

const quick = (args: string[]) => (values.quick ? args : []);
const benchmarks = [
  {
    name: 'event-store',
    script: 'bench/event-store-append.ts',
    args: quick(['--single', '5000', '--batched', '50000', '--rounds', '1']),
  },
  {
    name: 'products',
    script: 'bench/products-http.ts',
    args: quick(['--rounds', '1', '--duration', '3']),
  },
  {
    name: 'orders',
    script: 'bench/orders-http.ts',
    args: quick(['--rounds', '1', '--duration', '3', '--visibility', '200']),
  },
  { name: 'replay', script: 'bench/replay.ts', args: quick(['--orders', '20000']) },
  { name: 'webhooks', script: 'bench/webhooks.ts', args: quick(['--duration', '5']) },
  ...(distributed
    ? [
        {
          name: 'orders-distributed',
          script: 'bench/orders-http.ts',
          args: [
            '--mode',
            'distributed',
            // On FerretDB a visibility sample takes about half a second: 300 of them, not 1,000.
            ...(values.quick
              ? ['--rounds', '1', '--duration', '3', '--visibility', '100']
              : ['--visibility', '300']),
          ],
        },
        {
          name: 'webhooks-distributed',
          script: 'bench/webhooks.ts',
          args: ['--mode', 'distributed', '--rate', '10', '--duration', values.quick ? '5' : '20'],
        },
      ]
    : []),
];

const reports = mkdtempSync(join(tmpdir(), 'bench-reports-'));
const sections: string[] = [];
for (const { name, script, args } of benchmarks) {
  const report = join(reports, `${name}.md`);
  process.stdout.write(`\n=== ${name}: node ${script} ${args.join(' ')}\n`);
  const started = performance.now();
  execFileSync(process.execPath, [projectFile(script), ...args, '--report', report], { stdio: 'inherit' });
  process.stdout.write(`=== ${name}: ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  sections.push(readFileSync(report, 'utf8'));
}
rmSync(reports, { recursive: true, force: true });

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
  [header, ...sections, ...skipped, notes].map((part) => part.trim()).join('\n\n') + '\n',
);
process.stdout.write(`\nwrote ${values.out}\n`);
