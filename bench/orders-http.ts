// Orders over HTTP on the embedded service, each case beside a bare node:http server answering the same
// bytes (for POST: after reading and parsing the JSON body), alternating, several rounds, 50 connections:
//   POST /orders (orders/s), GET /orders/{id}.
// Then visibility: 1,000 orders one after another, the time from the 201 to the first GET /orders/{id}
// (without a Consistency-Token) that finds the order in the read model.
// Run: npm run bench:orders   Options: --rounds N --duration SECONDS --connections N --visibility N
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { load, median, pinned, projectFile, startProcess, type LoadResult } from './support/processes.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    visibility: { type: 'string', default: '1000' },
  },
});
const rounds = Number(values.rounds);
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const visibilitySamples = Number(values.visibility);

const dataDir = mkdtempSync(join(tmpdir(), 'bench-orders-'));
const { MONGODB_URL: _mongodb, ...environment } = process.env;
const email = 'bench-customer@shop.example';
const password = 'bench-password-123';
execFileSync(
  process.execPath,
  [projectFile('cli/admin.ts'), 'user:add', '--email', email, '--password', password, '--role', 'customer'],
  { env: { ...environment, DATA_DIR: dataDir }, stdio: 'inherit' },
);
const service = await startProcess('embedded/main.ts', [], {
  PORT: '0',
  DATA_DIR: dataDir,
  SEED_DEMO_USERS: 'false',
  LOG_LEVEL: 'info',
  // BENCH_CPU_PROFILE=DIR writes a CPU profile of the service (node --cpu-prof) there when it stops.
  ...(process.env['BENCH_CPU_PROFILE']
    ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env['BENCH_CPU_PROFILE']}` }
    : {}),
});

const token = (await (
  await fetch(`${service.url}/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username: email, password }),
  })
).json()) as { access_token: string };
const auth = { Authorization: `Bearer ${token.access_token}` };
const address = (await (
  await fetch(`${service.url}/users/me/addresses`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ street: '1 Bench Road', city: 'Lyon', postalCode: '69001', country: 'FR' }),
  })
).json()) as { id: string };
const orderBody = JSON.stringify({
  items: [
    { productId: '1001', quantity: 2 },
    { productId: '1017', quantity: 1 },
  ],
  shippingAddressId: address.id,
  note: 'Leave with the neighbour',
});
const postHeaders = { ...auth, 'Content-Type': 'application/json' };

const placeOrder = () =>
  fetch(`${service.url}/orders`, { method: 'POST', headers: postHeaders, body: orderBody });
const sample = await placeOrder();
const sampleBody = Buffer.from(await sample.arrayBuffer());
const orderPath = sample.headers.get('location')!;
const headersOf = (response: Response) =>
  Object.fromEntries(
    [...response.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)),
  );

// Wait until the read model has the sample, then take the GET's bytes as the bare server's fixture.
let read: Response;
do read = await fetch(`${service.url}${orderPath}`, { headers: auth });
while (read.status !== 200);
const readBody = Buffer.from(await read.arrayBuffer());

const fixture = (name: string, value: object) => {
  const path = join(dataDir, `${name}.json`);
  writeFileSync(path, JSON.stringify(value));
  return path;
};
const barePost = await startProcess(
  'bench/support/bare-server.ts',
  [
    fixture('post', {
      path: '/orders',
      method: 'POST',
      status: 201,
      headers: headersOf(sample),
      body: sampleBody.toString('base64'),
    }),
  ],
  {},
);
const bareGet = await startProcess(
  'bench/support/bare-server.ts',
  [
    fixture('get', {
      path: orderPath,
      status: 200,
      headers: headersOf(read),
      body: readBody.toString('base64'),
    }),
  ],
  {},
);

const cases = [
  {
    name: 'POST /orders',
    bare: barePost,
    path: '/orders',
    method: 'POST' as const,
    body: orderBody,
    headers: postHeaders,
  },
  { name: 'GET /orders/{id}', bare: bareGet, path: orderPath, method: 'GET' as const, headers: auth },
];
const results = new Map<string, LoadResult[]>();
const record = (key: string, result: LoadResult) => results.set(key, [...(results.get(key) ?? []), result]);

for (const benchCase of cases) {
  const options = {
    connections,
    method: benchCase.method,
    headers: benchCase.headers,
    ...(benchCase.body === undefined ? {} : { body: benchCase.body }),
  };
  await load(benchCase.bare, `${benchCase.bare.url}${benchCase.path}`, { ...options, durationSeconds: 2 });
  await load(service, `${service.url}${benchCase.path}`, { ...options, durationSeconds: 2 });
  for (let round = 0; round < rounds; round++) {
    record(
      `bare ${benchCase.name}`,
      await load(benchCase.bare, `${benchCase.bare.url}${benchCase.path}`, { ...options, durationSeconds }),
    );
    record(
      `service ${benchCase.name}`,
      await load(service, `${service.url}${benchCase.path}`, { ...options, durationSeconds }),
    );
  }
}

// Visibility: 201 to readable, sequentially, the read polled as fast as one client can.
const visible: number[] = [];
const acknowledged: number[] = [];
for (let sampleIndex = 0; sampleIndex < visibilitySamples; sampleIndex++) {
  const sent = performance.now();
  const created = await placeOrder();
  const ackedAt = performance.now();
  acknowledged.push(ackedAt - sent);
  if (created.status !== 201) throw new Error(`POST /orders answered ${created.status}`);
  const path = created.headers.get('location')!;
  await created.arrayBuffer();
  for (;;) {
    const response = await fetch(`${service.url}${path}`, { headers: auth });
    await response.arrayBuffer();
    if (response.status === 200) break;
  }
  visible.push(performance.now() - ackedAt);
}

await Promise.all([service.stop(), barePost.stop(), bareGet.stop()]);
rmSync(dataDir, { recursive: true, force: true });

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const summary = (key: string) => {
  const runs = results.get(key)!;
  return {
    'requests/s (median)': median(runs.map((r) => r.requestsPerSecond)),
    'p50 ms': median(runs.map((r) => r.p50)),
    'p99 ms': median(runs.map((r) => r.p99)),
    'server CPU µs/request': median(runs.map((r) => r.cpuMicrosPerRequest)),
    rounds: runs.map((r) => r.requestsPerSecond).join(' '),
    'non-2xx': runs.reduce((sum, r) => sum + r.non2xx, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
  };
};
console.log(
  `node ${process.version}, ${connections} connections, ${rounds} rounds of ${durationSeconds} s` +
    (pinned ? '; servers pinned to one core, the load generator to the other' : ''),
);
const table: Record<string, ReturnType<typeof summary>> = {};
for (const benchCase of cases) {
  table[`bare ${benchCase.name}`] = summary(`bare ${benchCase.name}`);
  table[`service ${benchCase.name}`] = summary(`service ${benchCase.name}`);
}
console.table(table);
for (const benchCase of cases) {
  const ratio =
    table[`service ${benchCase.name}`]!['requests/s (median)'] /
    table[`bare ${benchCase.name}`]!['requests/s (median)'];
  console.log(`${benchCase.name}: service at ${(ratio * 100).toFixed(0)}% of the bare server's requests/s`);
}
const ms = (value: number) => value.toFixed(2);
console.log(
  `visibility over ${visibilitySamples} orders: 201 to readable p50 ${ms(percentile(visible, 50))} ms, ` +
    `p99 ${ms(percentile(visible, 99))} ms, max ${ms(Math.max(...visible))} ms (goal: p99 under 20 ms); ` +
    `POST /orders alone p50 ${ms(percentile(acknowledged, 50))} ms, p99 ${ms(percentile(acknowledged, 99))} ms`,
);
