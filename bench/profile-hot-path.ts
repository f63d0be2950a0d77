// Where a hot route's time goes in the service: the embedded service started under `node --cpu-prof`
// (pinned, as in the benchmarks), one route loaded alone for a while, the service stopped, and its profile
// summarised: self time by part (the project's folders, each package, Node's HTTP, streams and crypto,
// garbage collection, idle) and the heaviest functions. Only the measured span counts: the samples of the
// set-up, the warm-up and the stop are left out.
// Run: npm run bench:profile -- --route get-order|post-order|get-product|get-product-304
// Options: --duration SECONDS (10) --connections N (50) --top N (25) --keep DIR (keep the .cpuprofile there)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { load } from './support/processes.ts';
import { benchWriteLimits, startBenchService } from './support/services.ts';
import { summariseProfile, type CpuProfile } from './support/profile-summary.ts';
import { benchCustomer } from './support/bench-customer.ts';

const { values } = parseArgs({
  options: {
    route: { type: 'string', default: 'get-order' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    top: { type: 'string', default: '25' },
    keep: { type: 'string' },
  },
});
const routes = ['get-order', 'post-order', 'get-product', 'get-product-304'];
if (!routes.includes(values.route)) {
  process.stderr.write(`--route must be one of ${routes.join(', ')}\n`);
  process.exit(64);
}

const profileDir = values.keep ?? mkdtempSync(join(tmpdir(), 'bench-profile-'));
const email = 'bench-customer@shop.example';
const password = 'bench-password-123';
const service = await startBenchService({
  mode: 'embedded',
  prefix: 'bench-profile-',
  users: [{ email, password, role: 'customer' }],
  env: { ...benchWriteLimits, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` },
});
const url = service.writeUrl;
const { auth, orderBody, postHeaders } = await benchCustomer(url, { email, password });
const placed = await fetch(`${url}/orders`, { method: 'POST', headers: postHeaders, body: orderBody });
await placed.arrayBuffer();
const orderPath = placed.headers.get('location')!;
const product = await fetch(`${url}/products/1001`);
await product.arrayBuffer();

const connections = Number(values.connections);
const durationSeconds = Number(values.duration);
const target = {
  'get-order': { path: orderPath, method: 'GET' as const, headers: auth, expectStatus: 200 },
  'post-order': {
    path: '/orders',
    method: 'POST' as const,
    headers: postHeaders,
    body: orderBody,
    expectStatus: 201,
  },
  'get-product': { path: '/products/1001', method: 'GET' as const, headers: {}, expectStatus: 200 },
  'get-product-304': {
    path: '/products/1001',
    method: 'GET' as const,
    headers: { 'If-None-Match': product.headers.get('etag')! },
    expectStatus: 304,
  },
}[values.route as 'get-order']!;
const options = { connections, ...target };
// For GET /orders/{id}, a read model of some size first, as in the benchmarks (they run the POST load first).
if (values.route === 'get-order')
  await load(service.writer, `${url}/orders`, {
    connections,
    durationSeconds: 5,
    method: 'POST',
    headers: postHeaders,
    body: orderBody,
  });
await load(service.writer, `${url}${target.path}`, { ...options, durationSeconds: 2 });
// The profile's timestamps are the system's monotonic clock in µs, as process.hrtime's.
const loadStarted = process.hrtime.bigint() / 1000n;
const result = await load(service.writer, `${url}${target.path}`, { ...options, durationSeconds });
const loadEnded = process.hrtime.bigint() / 1000n;
await service.stop();

const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile was written in ${profileDir}`);
const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
console.log(
  `${values.route}: ${result.requestsPerSecond} requests/s, ${result.cpuMicrosPerRequest} µs CPU per request, ` +
    `${result.unexpected + result.errors} unexpected answers or errors, over ${durationSeconds} s`,
);
console.log(
  summariseProfile(profile, {
    window: { fromMicros: Number(loadStarted), toMicros: Number(loadEnded) },
    top: Number(values.top),
    requests: result.requests,
  }),
);
if (values.keep) console.log(`profile kept: ${join(profileDir, file)}`);
else rmSync(profileDir, { recursive: true, force: true });
