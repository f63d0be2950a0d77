// GET /products/{id}, 200 and 304, on the embedded service beside a bare node:http server sending the same
// bytes and headers, alternating, several rounds, 50 connections. Run: npm run bench:products
// Options: --rounds N --duration SECONDS --connections N --report FILE (its BENCHMARKS.md section)
import { benchWriteLimits } from './support/services.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuProfileEnv, load, median, pinned, startProcess, type LoadResult } from './support/processes.ts';
import { loadComparison, memoryOf, reportOption, writeReport } from './support/report.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    ...reportOption,
  },
});
const rounds = Number(values.rounds);
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const path = '/products/1001';

const dataDir = mkdtempSync(join(tmpdir(), 'bench-products-'));
const service = await startProcess('embedded/main.ts', [], {
  PORT: '0',
  DATA_DIR: dataDir,
  SEED_DEMO_USERS: 'false',
  LOG_LEVEL: 'info',
  // Catalogue reads need no user; the limits are set as in every benchmark all the same.
  ...benchWriteLimits,
  ...cpuProfileEnv(),
});

// The bare server serves exactly what the service answered, headers included.
const sample = await fetch(`${service.url}${path}`);
const headers = Object.fromEntries(
  [...sample.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)),
);
const fixturePath = join(dataDir, 'fixture.json');
writeFileSync(
  fixturePath,
  JSON.stringify({
    path,
    status: 200,
    headers,
    body: Buffer.from(await sample.arrayBuffer()).toString('base64'),
  }),
);
const bare = await startProcess('bench/support/bare-server.ts', [fixturePath], {});
const etag = headers['etag']!;

const cases = [
  { name: '200', headers: {}, expectStatus: 200 },
  { name: '304', headers: { 'If-None-Match': etag }, expectStatus: 304 },
];
const results = new Map<string, LoadResult[]>();
const record = (key: string, result: LoadResult) => results.set(key, [...(results.get(key) ?? []), result]);

const idle = memoryOf(service.process.pid!);
// Warm both up (JIT, connection pools), then alternate bare and service, round after round.
await load(bare, `${bare.url}${path}`, { connections, durationSeconds: 2 });
await load(service, `${service.url}${path}`, { connections, durationSeconds: 2 });
for (let round = 0; round < rounds; round++) {
  for (const benchCase of cases) {
    record(
      `bare ${benchCase.name}`,
      await load(bare, `${bare.url}${path}`, {
        connections,
        durationSeconds,
        headers: benchCase.headers,
        expectStatus: benchCase.expectStatus,
      }),
    );
    record(
      `service ${benchCase.name}`,
      await load(service, `${service.url}${path}`, {
        connections,
        durationSeconds,
        headers: benchCase.headers,
        expectStatus: benchCase.expectStatus,
      }),
    );
  }
}
const memory = memoryOf(service.process.pid!);
await service.stop();
await bare.stop();
rmSync(dataDir, { recursive: true, force: true });

const summary = (key: string) => {
  const runs = results.get(key)!;
  const failures = runs.reduce((sum, r) => sum + r.errors, 0);
  return {
    'requests/s (median)': median(runs.map((r) => r.requestsPerSecond)),
    'p50 ms': median(runs.map((r) => r.p50)),
    'p99 ms': median(runs.map((r) => r.p99)),
    'server CPU µs/request': median(runs.map((r) => r.cpuMicrosPerRequest)),
    rounds: runs.map((r) => r.requestsPerSecond).join(' '),
    errors: failures,
  };
};
console.log(
  `node ${process.version}, ${connections} connections, ${rounds} rounds of ${durationSeconds} s, GET ${path}` +
    (pinned ? '; servers pinned to one core, the load generator to the other' : ''),
);
const table: Record<string, ReturnType<typeof summary>> = {};
for (const key of ['bare 200', 'service 200', 'bare 304', 'service 304']) table[key] = summary(key);
console.table(table);
for (const name of ['200', '304']) {
  const ratio =
    table[`service ${name}`]!['requests/s (median)'] / table[`bare ${name}`]!['requests/s (median)'];
  const cpu =
    table[`bare ${name}`]!['server CPU µs/request'] / table[`service ${name}`]!['server CPU µs/request'];
  console.log(
    `${name}: service at ${(ratio * 100).toFixed(0)}% of the bare server's requests/s (goal: at least 60%); ` +
      `per CPU-second it serves ${(cpu * 100).toFixed(0)}% as many`,
  );
}
console.log(`service memory: ${idle.rssMb} MB RSS idle, ${memory.peakMb} MB high-water mark under load`);

writeReport(
  values.report,
  `## GET /products/{id}: 200 and 304

\`npm run bench:products\` (bench/products-http.ts): the embedded service as \`npm start\` runs it, over the demo
catalogue, beside a bare node:http server answering the same path with the exact bytes and headers the
service sent (304 when If-None-Match equals the ETag). autocannon, ${connections} connections, ${rounds} rounds of
${durationSeconds} s after a warm-up, bare and service alternating; medians.${pinned ? ' Servers pinned to one core, autocannon to the other.' : ''}

${loadComparison(['200', '304'].map((name) => ({ name, bare: results.get(`bare ${name}`)!, service: results.get(`service ${name}`)! })))}

Service memory: ${idle.rssMb} MB RSS idle (after start-up), ${memory.peakMb} MB high-water mark after the load.`,
);
