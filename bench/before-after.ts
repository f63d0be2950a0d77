// The hot paths of the embedded service in this checkout beside another checkout of the project (a
// baseline: the commit before a change), same run, alternating: POST /orders, GET /orders/{id} and
// GET /products/{id}. Each server is its own process pinned to one core, the load on the other; rounds
// alternate between the two (the order rotated each round), and only the measured one runs (each is
// started on its data for its turn and stopped after it, so that neither's background work, such as its
// projections catching up, lands in the other's figures); medians of requests/s and of the server's CPU
// time per request, and the ratio of this checkout to the baseline.
// Make a baseline: git worktree add /tmp/baseline <commit> && ln -s "$PWD/node_modules" /tmp/baseline/
// Run: node bench/before-after.ts --baseline /tmp/baseline [--rounds 3] [--duration 5] [--connections 50]
//      [--report FILE]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  load,
  median,
  projectFile,
  startProcess,
  type LoadResult,
  type Started,
} from './support/processes.ts';
import { markdownTable, reportOption, writeReport } from './support/report.ts';
import { benchCustomer } from './support/bench-customer.ts';
import { benchWriteLimits } from './support/services.ts';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    ...reportOption,
  },
});
if (!values.baseline) throw new Error('--baseline DIR: a checkout of the project to compare with');
const rounds = Number(values.rounds);
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);

const email = 'bench-customer@shop.example';
const password = 'bench-password-123';

type Side = {
  name: string;
  root: string;
  dataDir: string;
  headers: Record<string, string>;
  orderBody: string;
  orderPath: string;
};

const startServer = (root: string, dataDir: string) =>
  startProcess(join(root, 'embedded/main.ts'), [], {
    PORT: '0',
    DATA_DIR: dataDir,
    SEED_DEMO_USERS: 'false',
    LOG_LEVEL: 'info',
    // One customer places every order of the run (a revision that has no such limits ignores these).
    ...benchWriteLimits,
  });

const startSide = async (name: string, root: string): Promise<Side> => {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-before-after-${name}-`));
  const { MONGODB_URL: _mongodb, ...environment } = process.env;
  execFileSync(
    process.execPath,
    [join(root, 'cli/admin.ts'), 'user:add', '--email', email, '--password', password, '--role', 'customer'],
    { env: { ...environment, DATA_DIR: dataDir }, stdio: 'ignore' },
  );
  const server = await startServer(root, dataDir);
  const { postHeaders: headers, orderBody } = await benchCustomer(server.url, { email, password });
  const placed = await fetch(`${server.url}/orders`, { method: 'POST', headers, body: orderBody });
  if (placed.status !== 201) throw new Error(`${name}: POST /orders answered ${placed.status}`);
  const orderPath = placed.headers.get('location')!;
  while ((await fetch(`${server.url}${orderPath}`, { headers })).status !== 200);
  await server.stop();
  return { name, root, dataDir, headers, orderBody, orderPath };
};

const sides = [
  await startSide('baseline', resolve(values.baseline)),
  await startSide('this checkout', projectFile('.')),
];

const cases: { name: string; run: (side: Side, server: Started, seconds: number) => Promise<LoadResult> }[] =
  [
    {
      name: 'POST /orders',
      run: (side, server, seconds) =>
        load(server, `${server.url}/orders`, {
          connections,
          durationSeconds: seconds,
          method: 'POST',
          headers: side.headers,
          body: side.orderBody,
          expectStatus: 201,
        }),
    },
    {
      name: 'GET /orders/{id}',
      run: (side, server, seconds) =>
        load(server, `${server.url}${side.orderPath}`, {
          connections,
          durationSeconds: seconds,
          headers: side.headers,
          expectStatus: 200,
        }),
    },
    {
      name: 'GET /products/{id}',
      run: (side, server, seconds) =>
        load(server, `${server.url}/products/1001`, {
          connections,
          durationSeconds: seconds,
          expectStatus: 200,
        }),
    },
  ];

const rows: (string | number)[][] = [];
for (const { name, run } of cases) {
  const results = new Map<string, LoadResult[]>(sides.map((side) => [side.name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const server = await startServer(side.root, side.dataDir);
      // A first short load warms the process up (JIT, caches) before the measured one.
      await run(side, server, 1);
      results.get(side.name)!.push(await run(side, server, durationSeconds));
      await server.stop();
    }
  }
  const [before, after] = sides.map((side) => results.get(side.name)!);
  const rate = (of: LoadResult[]) => median(of.map((result) => result.requestsPerSecond));
  const cpu = (of: LoadResult[]) => median(of.map((result) => result.cpuMicrosPerRequest));
  const unexpected = [...before!, ...after!].reduce(
    (sum, result) => sum + result.unexpected + result.errors,
    0,
  );
  rows.push([
    name,
    rate(before!),
    rate(after!),
    (rate(after!) / rate(before!)).toFixed(2),
    cpu(before!),
    cpu(after!),
    (cpu(before!) / cpu(after!)).toFixed(2),
    unexpected,
  ]);
}
for (const side of sides) rmSync(side.dataDir, { recursive: true, force: true });

const table = markdownTable(
  [
    'route',
    'baseline req/s',
    'this checkout req/s',
    'ratio',
    'baseline CPU µs/req',
    'this checkout CPU µs/req',
    'ratio by CPU',
    'unexpected answers',
  ],
  rows,
);
console.log(table);
writeReport(
  values.report,
  `Same run, ${rounds} alternating rounds of ${durationSeconds} s, ${connections} connections, medians; ` +
    `a ratio above 1 means this checkout is faster.\n\n${table}\n`,
);
