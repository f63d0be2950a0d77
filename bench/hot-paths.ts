// Issue 31's hot paths: GET /orders/{id}, POST /orders and GET /products/{id} (200 and 304) of the embedded
// service, each in the same run beside
//   - bare: a node:http server answering the very bytes the service sent (bench/support/bare-server.ts),
//   - ceiling: the least the route must do, with the service's own pieces (bench/support/ceilings/), and
//     the same ceiling writing the service's log line per request (--log); for POST, one commit per request
//     and, as a variant, the appends of one event-loop turn committed together (group commit),
//   - the Emmett peer (bench/peers/emmett/, orders only): the same routes built the way Emmett's
//     expressjs-with-sqlite sample builds them.
// Every server is its own process, pinned to one core with the load generator on the other; autocannon, 50
// connections, rounds alternating between the servers (the order rotated each round), medians. The POST
// case runs first, so that the GETs read tables as large as the service's after it: the GET ceiling is
// filled with as many orders as the service then holds.
// Before measuring, every server's answer is checked against the service's: the same order JSON (ids and
// times aside), the same product bytes and ETag.
// Run: npm run bench:hot-paths   Options: --rounds N (3) --duration SECONDS (5) --connections N (50)
//      --quick (rounds of 2 s, 1 s warm-ups) --no-peer --report FILE --goals FILE
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { signingKeyFromPem } from '../infrastructure/auth/signing-keys.ts';
import { atLeast, goalsOption, printGoals, writeGoals, type GoalRow } from './support/goals.ts';
import { ensureEmmettPeer } from './support/emmett-peer.ts';
import {
  cpuProfileEnv,
  load,
  median,
  pinned,
  startProcess,
  type LoadResult,
  type Started,
} from './support/processes.ts';
import { figure, markdownTable, memoryOf, reportOption, writeReport } from './support/report.ts';
import { benchWriteLimits, startBenchService } from './support/services.ts';
import { benchAddress, benchCustomer } from './support/bench-customer.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string' },
    connections: { type: 'string', default: '50' },
    quick: { type: 'boolean', default: false },
    'no-peer': { type: 'boolean', default: false },
    ...reportOption,
    ...goalsOption,
  },
});
// One exit listener per server started (processes.ts), and this run starts more than ten.
process.setMaxListeners(40);
const rounds = Number(values.rounds);
const durationSeconds = Number(values.duration ?? (values.quick ? 2 : 5));
const warmUpSeconds = values.quick ? 1 : 2;
const connections = Number(values.connections);
const runDate = new Date().toISOString().slice(0, 10);
const loadAverage = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(', ');

// ---- The service, a customer with an address, one order -------------------------------------------------

const email = 'bench-customer@shop.example';
const password = 'bench-password-123';
const service = await startBenchService({
  mode: 'embedded',
  prefix: 'bench-hot-paths-',
  users: [{ email, password, role: 'customer' }],
  env: { ...benchWriteLimits, ...cpuProfileEnv() },
});
const { writeUrl: serviceUrl, dataDir } = service;
const { token, auth, orderBody, postHeaders, addressId } = await benchCustomer(serviceUrl, {
  email,
  password,
});
const headersOf = (response: Response) =>
  Object.fromEntries(
    [...response.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)),
  );

type Placed = { status: number; headers: Record<string, string>; body: Buffer; path: string };
const place = async (url: string): Promise<Placed> => {
  const response = await fetch(`${url}/orders`, { method: 'POST', headers: postHeaders, body: orderBody });
  const body = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    headers: headersOf(response),
    body,
    path: response.headers.get('location') ?? '',
  };
};
const readOrder = async (url: string, path: string) => {
  for (;;) {
    const response = await fetch(`${url}${path}`, { headers: auth });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status === 200) return { headers: headersOf(response), body };
    if (response.status !== 404) throw new Error(`GET ${path} answered ${response.status}`);
  }
};
const sample = await place(serviceUrl);
if (sample.status !== 201) throw new Error(`the service answered ${sample.status} to POST /orders`);
const sampleRead = await readOrder(serviceUrl, sample.path);
const sampleOrder = JSON.parse(sampleRead.body.toString('utf8')) as {
  id: string;
  customerId: string;
  updatedAt: string;
};

/** The order JSON without what differs from one order to the next: its id and times. */
const comparable = (body: Buffer) => {
  const {
    id: _id,
    createdAt: _created,
    updatedAt: _updated,
    ...rest
  } = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  return JSON.stringify(rest);
};
/** The headers a server's answer must have, as the service's has them (values compared where fixed). */
const sameHeaders = (name: string, got: Record<string, string>, expected: Record<string, string>) => {
  const varying = new Set(['x-request-id', 'etag', 'last-modified', 'location', 'consistency-token']);
  for (const [header, value] of Object.entries(expected)) {
    if (!(header in got)) throw new Error(`${name}: no ${header} header`);
    if (!varying.has(header) && got[header] !== value)
      throw new Error(`${name}: ${header} is ${got[header]}, the service sends ${value}`);
  }
};

// ---- The other servers ----------------------------------------------------------------------------------

const fixture = (name: string, value: object) => {
  const path = join(dataDir, `${name}.json`);
  writeFileSync(path, JSON.stringify(value));
  return path;
};
const signingKey = signingKeyFromPem(readFileSync(join(dataDir, 'keys', 'jwt-signing-key.pem'), 'utf8'));
const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as {
  iss: string;
  aud: string;
  sub: string;
};
const ceilingConfigFile = fixture('ceiling', {
  token: {
    kid: signingKey.kid,
    publicKeyPem: signingKey.publicKey.export({ type: 'spki', format: 'pem' }),
    issuer: claims.iss,
    audience: claims.aud,
  },
  dataDir,
  currency: 'EUR',
  addresses: [{ customerId: claims.sub, id: addressId, ...benchAddress }],
});
const ceiling = (script: string, ...flags: string[]) =>
  startProcess(`bench/support/ceilings/${script}`, [ceilingConfigFile, ...flags], {});
const bare = (name: string, value: object) =>
  startProcess('bench/support/bare-server.ts', [fixture(name, value)], {});

const productPath = '/products/1001';
const productSample = await fetch(`${serviceUrl}${productPath}`);
const productHeaders = headersOf(productSample);
const productBody = Buffer.from(await productSample.arrayBuffer());

const peerWanted = !values['no-peer'];
const peerReady = peerWanted && ensureEmmettPeer();
const peer = peerReady
  ? await startProcess('bench/peers/emmett/server.ts', [ceilingConfigFile], {})
  : undefined;

const servers = {
  barePost: await bare('bare-post', {
    path: '/orders',
    method: 'POST',
    status: 201,
    headers: sample.headers,
    body: sample.body.toString('base64'),
  }),
  postCeiling: await ceiling('post-order.ts'),
  postCeilingLog: await ceiling('post-order.ts', '--log'),
  postGroupCeiling: await ceiling('post-order.ts', '--group-commit'),
  postGroupCeilingLog: await ceiling('post-order.ts', '--group-commit', '--log'),
  bareGet: await bare('bare-get', {
    path: sample.path,
    status: 200,
    headers: sampleRead.headers,
    body: sampleRead.body.toString('base64'),
  }),
  bareProduct: await bare('bare-product', {
    path: productPath,
    status: 200,
    headers: productHeaders,
    body: productBody.toString('base64'),
  }),
  productCeiling: await ceiling('get-product.ts'),
  productCeilingLog: await ceiling('get-product.ts', '--log'),
};

// Every POST server answers what the service answers.
const checks: string[] = [];
for (const [name, server] of [
  ['ceiling', servers.postCeiling],
  ['ceiling, group commit', servers.postGroupCeiling],
  ...(peer ? [['Emmett peer', peer] as const] : []),
] as const) {
  const placed = await place(server.url);
  if (placed.status !== 201) throw new Error(`${name} answered ${placed.status} to POST /orders`);
  if (comparable(placed.body) !== comparable(sample.body))
    throw new Error(
      `${name}: POST /orders answered\n${placed.body}\nwhere the service answered\n${sample.body}`,
    );
  sameHeaders(`${name} POST /orders`, placed.headers, sample.headers);
  checks.push(`${name}: POST /orders answers the service's order JSON and headers`);
}
let peerOrderPath: string | undefined;
if (peer) {
  const placed = await place(peer.url);
  peerOrderPath = placed.path;
  const read = await readOrder(peer.url, placed.path);
  if (!read.body.equals(placed.body)) throw new Error('Emmett peer: GET answers other bytes than its POST');
  if (comparable(read.body) !== comparable(sampleRead.body))
    throw new Error(
      `Emmett peer: GET /orders/{id} answered\n${read.body}\nwhere the service answered\n${sampleRead.body}`,
    );
  sameHeaders('Emmett peer GET /orders/{id}', read.headers, sampleRead.headers);
  checks.push("Emmett peer: GET /orders/{id} of an order it placed answers the service's JSON and headers");
}
for (const [name, server] of [
  ['ceiling', servers.productCeiling],
  ['ceiling with the log line', servers.productCeilingLog],
] as const) {
  const response = await fetch(`${server.url}${productPath}`);
  const body = Buffer.from(await response.arrayBuffer());
  if (!body.equals(productBody)) throw new Error(`product ${name}: other bytes than the service's`);
  sameHeaders(`product ${name}`, headersOf(response), productHeaders);
  if (response.headers.get('etag') !== productSample.headers.get('etag'))
    throw new Error(`product ${name}: another ETag than the service's`);
}
checks.push("product ceilings: the service's bytes, ETag and headers");

// ---- Measuring --------------------------------------------------------------------------------------------

type Contender = { name: string; server: Started; path: string; role: Role };
type Role = 'bare' | 'ceiling' | 'ceiling+log' | 'group' | 'group+log' | 'service' | 'peer';
type Case = {
  name: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  expectStatus: number;
  contenders: Contender[];
};
const results = new Map<string, LoadResult[]>();
const key = (benchCase: Case, contender: Contender) => `${benchCase.name}|${contender.role}`;
const runsOf = (caseName: string, role: Role) => results.get(`${caseName}|${role}`);

const measure = async (benchCase: Case) => {
  const options = (contender: Contender, seconds: number) => ({
    connections,
    durationSeconds: seconds,
    method: benchCase.method,
    headers: benchCase.headers,
    expectStatus: benchCase.expectStatus,
    ...(benchCase.body === undefined ? {} : { body: benchCase.body }),
    ...(contender.role === 'service' ? { processes: service.others } : {}),
  });
  const url = (contender: Contender) => `${contender.server.url}${contender.path}`;
  for (const contender of benchCase.contenders)
    await load(contender.server, url(contender), options(contender, warmUpSeconds));
  for (let round = 0; round < rounds; round++) {
    // Rotated each round: no server always follows the same one.
    const order = benchCase.contenders.map(
      (_, index) => benchCase.contenders[(index + round) % benchCase.contenders.length]!,
    );
    for (const contender of order) {
      const result = await load(contender.server, url(contender), options(contender, durationSeconds));
      results.set(key(benchCase, contender), [...(results.get(key(benchCase, contender)) ?? []), result]);
    }
  }
  process.stdout.write(`measured ${benchCase.name}\n`);
};

const idleMemory = memoryOf(service.writer.process.pid!);
const postCase: Case = {
  name: 'POST /orders',
  method: 'POST',
  headers: postHeaders,
  body: orderBody,
  expectStatus: 201,
  contenders: [
    { name: 'bare', server: servers.barePost, path: '/orders', role: 'bare' },
    {
      name: 'ceiling, one commit per request',
      server: servers.postCeiling,
      path: '/orders',
      role: 'ceiling',
    },
    {
      name: 'ceiling with the log line, one commit per request',
      server: servers.postCeilingLog,
      path: '/orders',
      role: 'ceiling+log',
    },
    { name: 'ceiling, group commit', server: servers.postGroupCeiling, path: '/orders', role: 'group' },
    {
      name: 'ceiling with the log line, group commit',
      server: servers.postGroupCeilingLog,
      path: '/orders',
      role: 'group+log',
    },
    { name: 'service', server: service.writer, path: '/orders', role: 'service' },
    ...(peer ? [{ name: 'Emmett peer', server: peer, path: '/orders', role: 'peer' as const }] : []),
  ],
};
await measure(postCase);
const postMemory = memoryOf(service.writer.process.pid!);

// The GET ceiling holds as many orders as the service does now.
const ordersInService = (
  (await (await fetch(`${serviceUrl}/orders?perPage=1`, { headers: auth })).json()) as {
    meta: { total: number };
  }
).meta.total;
const getCeilingConfig = fixture('ceiling-get', {
  ...(JSON.parse(readFileSync(ceilingConfigFile, 'utf8')) as object),
  order: {
    id: sampleOrder.id,
    customerId: sampleOrder.customerId,
    updatedAt: sampleOrder.updatedAt,
    body: sampleRead.body.toString('base64'),
  },
  fillerOrders: ordersInService,
});
const getCeiling = await startProcess('bench/support/ceilings/get-order.ts', [getCeilingConfig], {});
const getCeilingLog = await startProcess(
  'bench/support/ceilings/get-order.ts',
  [getCeilingConfig, '--log'],
  {},
);
for (const [name, server] of [
  ['ceiling', getCeiling],
  ['ceiling with the log line', getCeilingLog],
] as const) {
  const read = await readOrder(server.url, sample.path);
  if (!read.body.equals(sampleRead.body)) throw new Error(`GET ${name}: other bytes than the service's`);
  sameHeaders(`GET /orders/{id} ${name}`, read.headers, sampleRead.headers);
}
checks.push(
  `GET /orders/{id} ceilings: the service's bytes and headers, over ${figure(ordersInService)} orders`,
);

const getCase: Case = {
  name: 'GET /orders/{id}',
  method: 'GET',
  headers: auth,
  expectStatus: 200,
  contenders: [
    { name: 'bare', server: servers.bareGet, path: sample.path, role: 'bare' },
    { name: 'ceiling', server: getCeiling, path: sample.path, role: 'ceiling' },
    { name: 'ceiling with the log line', server: getCeilingLog, path: sample.path, role: 'ceiling+log' },
    { name: 'service', server: service.reader, path: sample.path, role: 'service' },
    ...(peer && peerOrderPath
      ? [{ name: 'Emmett peer', server: peer, path: peerOrderPath, role: 'peer' as const }]
      : []),
  ],
};
await measure(getCase);
const ordersMemory = memoryOf(service.writer.process.pid!);

const productCases: Case[] = [
  { name: 'GET /products/{id} 200', headers: {}, expectStatus: 200 },
  {
    name: 'GET /products/{id} 304',
    headers: { 'If-None-Match': productHeaders['etag']! },
    expectStatus: 304,
  },
].map(({ name, headers, expectStatus }) => ({
  name,
  method: 'GET',
  headers,
  expectStatus,
  contenders: [
    { name: 'bare', server: servers.bareProduct, path: productPath, role: 'bare' },
    { name: 'ceiling', server: servers.productCeiling, path: productPath, role: 'ceiling' },
    {
      name: 'ceiling with the log line',
      server: servers.productCeilingLog,
      path: productPath,
      role: 'ceiling+log',
    },
    { name: 'service', server: service.reader, path: productPath, role: 'service' },
  ],
}));
for (const benchCase of productCases) await measure(benchCase);

await Promise.all([
  service.stop(),
  ...Object.values(servers).map((server) => server.stop()),
  getCeiling.stop(),
  getCeilingLog.stop(),
  ...(peer ? [peer.stop()] : []),
]);

// ---- Reporting ----------------------------------------------------------------------------------------

const rate = (caseName: string, role: Role) => {
  const runs = runsOf(caseName, role);
  return runs ? median(runs.map((run) => run.requestsPerSecond)) : NaN;
};
const cases = [postCase, getCase, ...productCases];
const tableOf = (benchCase: Case) =>
  markdownTable(
    [
      'server',
      'requests/s (median)',
      'of bare',
      'service of it',
      'by CPU µs/request',
      'p50 ms',
      'p99 ms',
      'server CPU µs/request',
      'rounds (requests/s)',
      'unexpected answers or errors',
    ],
    benchCase.contenders.map((contender) => {
      const runs = runsOf(benchCase.name, contender.role)!;
      const requestsPerSecond = rate(benchCase.name, contender.role);
      const serviceRate = rate(benchCase.name, 'service');
      return [
        contender.role === 'service' ? `**${contender.name}**` : contender.name,
        requestsPerSecond,
        contender.role === 'bare' ? '1.00' : (requestsPerSecond / rate(benchCase.name, 'bare')).toFixed(2),
        contender.role === 'service' ? '' : (serviceRate / requestsPerSecond).toFixed(2),
        contender.role === 'service' ? '' : ofByCpu(benchCase.name, contender.role).toFixed(2),
        median(runs.map((run) => run.p50)),
        median(runs.map((run) => run.p99)),
        median(runs.map((run) => run.cpuMicrosPerRequest)),
        runs.map((run) => figure(run.requestsPerSecond)).join(' '),
        runs.reduce((sum, run) => sum + run.unexpected + run.errors, 0),
      ];
    }),
  );

const cpu = (caseName: string, role: Role) => {
  const runs = runsOf(caseName, role);
  return runs ? median(runs.map((run) => run.cpuMicrosPerRequest)) : NaN;
};
const detailOf = (caseName: string, roles: Role[]) =>
  roles
    .filter((role) => runsOf(caseName, role))
    .map((role) => `${role} ${figure(rate(caseName, role))}/s (${figure(cpu(caseName, role))} µs CPU)`)
    .join(', ');
const of = (caseName: string, role: Role) => rate(caseName, 'service') / rate(caseName, role);
/** The same ratio by server CPU time per request: the other's µs over the service's. */
const ofByCpu = (caseName: string, role: Role) => cpu(caseName, role) / cpu(caseName, 'service');
const goals: GoalRow[] = [
  {
    order: 1,
    path: 'GET /orders/{id}',
    today: '0.45 of that ceiling, 0.22 of bare',
    checks: [
      atLeast(
        'of its ceiling with the log line',
        of('GET /orders/{id}', 'ceiling+log'),
        0.8,
        '',
        ofByCpu('GET /orders/{id}', 'ceiling+log'),
      ),
      atLeast('of bare', of('GET /orders/{id}', 'bare'), 0.4, '', ofByCpu('GET /orders/{id}', 'bare')),
      atLeast(
        'x the Emmett peer',
        of('GET /orders/{id}', 'peer'),
        1.5,
        'x',
        ofByCpu('GET /orders/{id}', 'peer'),
      ),
    ],
    detail: detailOf('GET /orders/{id}', ['bare', 'ceiling', 'ceiling+log', 'service', 'peer']),
  },
  {
    order: 2,
    path: 'POST /orders',
    today: '0.38 of that ceiling, 0.15 of bare',
    checks: [
      atLeast(
        'of its group-commit ceiling with the log line',
        of('POST /orders', 'group+log'),
        0.75,
        '',
        ofByCpu('POST /orders', 'group+log'),
      ),
      atLeast(
        'of its group-commit ceiling (no log line)',
        of('POST /orders', 'group'),
        0.75,
        '',
        ofByCpu('POST /orders', 'group'),
      ),
      atLeast('of bare', of('POST /orders', 'bare'), 0.3, '', ofByCpu('POST /orders', 'bare')),
      atLeast('x the Emmett peer', of('POST /orders', 'peer'), 1.5, 'x', ofByCpu('POST /orders', 'peer')),
    ],
    detail: detailOf('POST /orders', [
      'bare',
      'ceiling',
      'ceiling+log',
      'group',
      'group+log',
      'service',
      'peer',
    ]),
  },
  ...(['200', '304'] as const).map((status, index): GoalRow => ({
    order: 3 + index,
    path: `GET /products/{id}, ${status}`,
    today: `${status === '200' ? '0.63' : '0.42'} of bare`,
    checks: [
      atLeast(
        'of its ceiling with the log line',
        of(`GET /products/{id} ${status}`, 'ceiling+log'),
        0.85,
        '',
        ofByCpu(`GET /products/{id} ${status}`, 'ceiling+log'),
      ),
      atLeast(
        'of bare',
        of(`GET /products/{id} ${status}`, 'bare'),
        0.7,
        '',
        ofByCpu(`GET /products/{id} ${status}`, 'bare'),
      ),
    ],
    detail: detailOf(`GET /products/{id} ${status}`, ['bare', 'ceiling', 'ceiling+log', 'service']),
  })),
];
writeGoals(values.goals, goals);

console.log(
  `node ${process.version}, ${connections} connections, ${rounds} rounds of ${durationSeconds} s after ` +
    `${warmUpSeconds} s warm-ups, alternating` +
    (pinned ? '; servers pinned to one core, the load generator to the other' : '') +
    `; load average at the start ${loadAverage}`,
);
for (const check of checks) console.log(`checked: ${check}`);
if (peerWanted && !peer) console.log('the Emmett peer could not be installed: its rows are missing');
for (const benchCase of cases) {
  console.log(`\n${benchCase.name}`);
  console.table(
    Object.fromEntries(
      benchCase.contenders.map((contender) => {
        const runs = runsOf(benchCase.name, contender.role)!;
        return [
          contender.name,
          {
            'requests/s': rate(benchCase.name, contender.role),
            'of bare': Number(
              (rate(benchCase.name, contender.role) / rate(benchCase.name, 'bare')).toFixed(2),
            ),
            'service of it': Number(of(benchCase.name, contender.role).toFixed(2)),
            'by CPU': Number(ofByCpu(benchCase.name, contender.role).toFixed(2)),
            'p99 ms': median(runs.map((run) => run.p99)),
            'CPU µs/req': cpu(benchCase.name, contender.role),
            rounds: runs.map((run) => run.requestsPerSecond).join(' '),
            unexpected: runs.reduce((sum, run) => sum + run.unexpected + run.errors, 0),
          },
        ];
      }),
    ),
  );
}
console.log(
  `service memory: ${idleMemory.rssMb} MB RSS idle, high-water ${postMemory.peakMb} MB after the POST load, ` +
    `${ordersMemory.peakMb} MB after the GET load`,
);
printGoals(goals);

writeReport(
  values.report,
  `## Hot paths against their ceilings and the Emmett peer (issue 31)

\`npm run bench:hot-paths\` (bench/hot-paths.ts), ${runDate}, load average ${loadAverage} at the start: the
embedded service as \`npm start\` runs it, beside, in the same run and alternating (the order rotated each
round): a bare node:http server sending the service's bytes; the route's **ceiling**
(bench/support/ceilings/: Express 5, the service's security headers, X-Request-Id and cached token verifier,
and only what the route must do), alone and writing the service's log line per request; for the orders
routes, the **Emmett peer** (bench/peers/emmett/: Emmett 0.42 with emmett-sqlite and emmett-expressjs, built
as its expressjs-with-sqlite sample builds a web API). ${connections} connections, ${rounds} rounds of ${durationSeconds} s after
${warmUpSeconds} s warm-ups; medians.${pinned ? ' Servers pinned to one core, autocannon to the other.' : ''} "service of it": the service's
requests/s over that server's; "by CPU µs/request": that server's CPU time per request over the service's, the
steadier figure when other work shares the machine. Checked before measuring: ${checks.join('; ')}.

${cases.map((benchCase) => `**${benchCase.name}**\n\n${tableOf(benchCase)}`).join('\n\n')}

Service memory: ${idleMemory.rssMb} MB RSS idle, high-water ${postMemory.peakMb} MB after the POST load and
${ordersMemory.peakMb} MB after the GET load.`,
);
