// Orders over HTTP on the embedded service, each case beside a bare node:http server answering the same
// bytes (for POST: after reading and parsing the JSON body), alternating, several rounds, 50 connections:
//   POST /orders (orders/s), GET /orders/{id}.
// Then visibility: 1,000 orders one after another, the time from the 201 to the first GET /orders/{id}
// (without a Consistency-Token) that finds the order in the read model.
// With --mode distributed, the same against the four processes of the distributed mode on the servers of
// MONGODB_URL and KAFKA_BROKERS: writes to the command API, reads from the query API; and, for issue 30's
// goals table:
//   - POST /orders of the embedded default too, in the same rounds (its own process, pinned like the
//     others): the distributed mode's requests/s as a share of the embedded default's;
//   - visibility at two sizes of the read model, each as --visibility-rounds rounds of --visibility orders:
//     first with about --small-orders orders (placed quickly before the POST load), then with about
//     --large-orders (topped up by a quick load), both before the POST load; p50/p99 per round, median p99.
// The distributed mode runs on the event log --log names (default: PostgreSQL, a fresh database); for issue
// 40's goals, a second stand beside it on --baseline-log (default: the shared node:sqlite file beside
// PostgreSQL; `none` for none): its POST /orders in the same rounds, its visibility rounds taking turns.
// Run: npm run bench:orders (or bench:orders:distributed)
// Options: --mode embedded|distributed --rounds N --duration SECONDS --connections N --visibility N
//          --visibility-rounds N --small-orders N --large-orders N --log postgres|sqlite-file|eventstoredb
//          --baseline-log LOG|none (the last five: distributed mode)
//          --report FILE (its BENCHMARKS.md section) --goals FILE (goal rows: issue 31's in embedded mode,
//          issue 30's in distributed mode)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuProfileEnv, load, median, pinned, startProcess, type LoadResult } from './support/processes.ts';
import {
  figure,
  loadComparison,
  markdownTable,
  memoryOf,
  reportOption,
  writeReport,
} from './support/report.ts';
import { atLeast, atMost, below, goalsOption, ratio, writeGoals } from './support/goals.ts';
import {
  benchLogs,
  benchMode,
  benchWriteLimits,
  logNames,
  logOption,
  modeOption,
  startBenchService,
  type BenchService,
} from './support/services.ts';
import { benchCustomer } from './support/bench-customer.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    visibility: { type: 'string', default: '1000' },
    'visibility-rounds': { type: 'string', default: '3' },
    'small-orders': { type: 'string', default: '1000' },
    'large-orders': { type: 'string', default: '20000' },
    ...modeOption,
    ...logOption,
    ...reportOption,
    ...goalsOption,
  },
});
const mode = benchMode(values.mode);
const logs = benchLogs(mode, values.log, values['baseline-log']);
const rounds = Number(values.rounds);
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const visibilitySamples = Number(values.visibility);
const visibilityRounds = Number(values['visibility-rounds']);
const smallOrders = Number(values['small-orders']);
const largeOrders = Number(values['large-orders']);

const email = 'bench-customer@shop.example';
const password = 'bench-password-123';
const service = await startBenchService({
  mode,
  log: logs.log,
  prefix: 'bench-orders-',
  users: [{ email, password, role: 'customer' }],
  env: { ...benchWriteLimits, ...cpuProfileEnv() },
});
const { writeUrl, readUrl, dataDir } = service;

/** The customer's bearer token and the body of an order to its stored address, on the service at `url`. */
const customerOf = (url: string) => benchCustomer(url, { email, password });

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

type VisibilityRound = {
  /** 201 to readable, ms, one per order. */
  visible: number[];
  /** POST /orders alone, ms. */
  acknowledged: number[];
  /** Orders acknowledged before the round's first and after its last. */
  ordersAtStart: number;
  ordersAtEnd: number;
  p50: number;
  p99: number;
  max: number;
};

/**
 * A distributed (or embedded) service with the customer signed in, and what the benchmark does on it:
 * placing orders, filling its read model, timing 201 to readable.
 */
const standOf = async (stand: BenchService, label: string) => {
  const { auth, orderBody, postHeaders } = await customerOf(stand.writeUrl);
  /** Orders the service has acknowledged (201) so far: what its read model holds once caught up. */
  const counts = { ordersPlaced: 0 };
  const placeOrder = async () => {
    const response = await fetch(`${stand.writeUrl}/orders`, {
      method: 'POST',
      headers: postHeaders,
      body: orderBody,
    });
    if (response.status === 201) counts.ordersPlaced++;
    return response;
  };

  /** The first GET (without a Consistency-Token) that finds the order at `path`; its time, in ms. */
  const readable = async (path: string) => {
    const from = performance.now();
    for (;;) {
      const response = await fetch(`${stand.readUrl}${path}`, { headers: auth });
      await response.arrayBuffer();
      if (response.status === 200) return performance.now() - from;
    }
  };

  /**
   * Places one order and waits until it is readable: the projections have then caught up with every order
   * before it. Its time, in ms.
   */
  const caughtUp = async () => {
    const created = await placeOrder();
    await created.arrayBuffer();
    if (created.status !== 201) throw new Error(`POST /orders answered ${created.status}`);
    return readable(created.headers.get('location')!);
  };

  /**
   * Places orders quickly (many at once) until the service has acknowledged `target` of them in all, then
   * waits for the read model to catch up. An answer that sheds load (429, 503) is retried after a pause.
   */
  const fillTo = async (target: number) => {
    const from = performance.now();
    const before = counts.ordersPlaced;
    let claimed = counts.ordersPlaced;
    const worker = async () => {
      while (claimed < target) {
        claimed++;
        const response = await placeOrder();
        await response.arrayBuffer();
        if (response.status === 201) continue;
        claimed--;
        if (response.status !== 429 && response.status !== 503)
          throw new Error(`POST /orders answered ${response.status}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
    const placedIn = performance.now() - from;
    const added = counts.ordersPlaced - before;
    const catchUpMs = await caughtUp();
    return { before, added, seconds: placedIn / 1000, catchUpSeconds: catchUpMs / 1000 };
  };

  /** `samples` orders one after another: from reading the 201 to the first GET that finds the order. */
  const visibilityRound = async (samples: number): Promise<VisibilityRound> => {
    const ordersAtStart = counts.ordersPlaced;
    const visible: number[] = [];
    const acknowledged: number[] = [];
    for (let sampleIndex = 0; sampleIndex < samples; sampleIndex++) {
      const sent = performance.now();
      const created = await placeOrder();
      const ackedAt = performance.now();
      acknowledged.push(ackedAt - sent);
      if (created.status !== 201) throw new Error(`POST /orders answered ${created.status}`);
      const path = created.headers.get('location')!;
      await created.arrayBuffer();
      for (;;) {
        const response = await fetch(`${stand.readUrl}${path}`, { headers: auth });
        await response.arrayBuffer();
        if (response.status === 200) break;
      }
      visible.push(performance.now() - ackedAt);
    }
    return {
      visible,
      acknowledged,
      ordersAtStart,
      ordersAtEnd: counts.ordersPlaced,
      p50: percentile(visible, 50),
      p99: percentile(visible, 99),
      max: Math.max(...visible),
    };
  };

  return {
    service: stand,
    label,
    auth,
    orderBody,
    postHeaders,
    counts,
    placeOrder,
    caughtUp,
    fillTo,
    visibilityRound,
  };
};
type Stand = Awaited<ReturnType<typeof standOf>>;

const main = await standOf(service, logs.log === undefined ? mode : logNames[logs.log]);
const { auth, orderBody, postHeaders, placeOrder, caughtUp, visibilityRound } = main;
const sample = await placeOrder();
const sampleBody = Buffer.from(await sample.arrayBuffer());
const orderPath = sample.headers.get('location')!;
const headersOf = (response: Response) =>
  Object.fromEntries(
    [...response.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)),
  );

// Wait until the read model has the sample, then take the GET's bytes as the bare server's fixture.
let read: Response;
do read = await fetch(`${readUrl}${orderPath}`, { headers: auth });
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

// Issue 5's reference for the POST goal: Express 5, RS256 verified per request, zod, one INSERT (its own token).
const referenceTokenFile = join(dataDir, 'reference-token');
const referencePost = await startProcess(
  'bench/support/reference-order-server.ts',
  [referenceTokenFile, dataDir],
  {},
);
const referenceLoad = {
  connections,
  method: 'POST' as const,
  body: orderBody,
  headers: {
    Authorization: `Bearer ${readFileSync(referenceTokenFile, 'utf8')}`,
    'Content-Type': 'application/json',
  },
  expectStatus: 201,
};
/** Issue 5's goal for POST /orders: 6,000/s where the reference reached about 9,000/s. */
const postGoalOfReference = 6000 / 9000;

type Fill = Awaited<ReturnType<Stand['fillTo']>>;
const fillLine = ({ before, added, seconds }: Fill) =>
  added === 0
    ? `${figure(before)} already, no orders added`
    : `${figure(before)} already, ${figure(added)} added in ${figure(seconds, 1)} s`;
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

type VisibilityAtSize = {
  /** The size asked for (--small-orders, --large-orders). */
  target: number;
  fill: Fill;
  rounds: VisibilityRound[];
  medianP99: number;
  medianP50: number;
};

/**
 * Distributed mode: each stand's read model filled to about `target` orders, then --visibility-rounds
 * rounds, the stands taking turns round by round (so that the machine's noise falls on each alike).
 */
const visibilityAt = async (target: number, stands: readonly Stand[]): Promise<VisibilityAtSize[]> => {
  const sizes: VisibilityAtSize[] = [];
  for (const stand of stands) {
    const fill = await stand.fillTo(target);
    console.log(
      `${stand.label}: read model at ${figure(stand.counts.ordersPlaced)} orders (${fillLine(fill)}, caught up ` +
        `${figure(fill.catchUpSeconds, 2)} s later): ${visibilityRounds} visibility rounds of ${visibilitySamples} orders`,
    );
    sizes.push({ target, fill, rounds: [], medianP99: NaN, medianP50: NaN });
  }
  for (let round = 0; round < visibilityRounds; round++) {
    for (const [index, stand] of stands.entries()) {
      const result = await stand.visibilityRound(visibilitySamples);
      console.log(
        `  ${stand.label}, round ${round + 1}: ${figure(result.ordersAtStart)} to ${figure(result.ordersAtEnd)} orders, ` +
          `201 to readable p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, max ${result.max.toFixed(2)} ms`,
      );
      sizes[index]!.rounds.push(result);
    }
  }
  return sizes.map((size) => ({
    ...size,
    medianP99: median(size.rounds.map((round) => round.p99)),
    medianP50: median(size.rounds.map((round) => round.p50)),
  }));
};

const idleMemory = memoryOf(service.writer.process.pid!);

// Distributed mode: the embedded default beside it, for POST /orders in the same rounds.
const embedded =
  mode === 'distributed'
    ? await startBenchService({
        mode: 'embedded',
        prefix: 'bench-orders-embedded-',
        users: [{ email, password, role: 'customer' }],
        env: { ...benchWriteLimits, ...cpuProfileEnv() },
      })
    : undefined;
const embeddedCustomer = embedded === undefined ? undefined : await customerOf(embedded.writeUrl);

// Distributed mode: the same four processes on the baseline's event log (by default the shared node:sqlite
// file beside the PostgreSQL log), for POST /orders and 201 to readable in the same rounds.
const baselineService =
  mode === 'distributed' && logs.baseline !== undefined
    ? await startBenchService({
        mode,
        log: logs.baseline,
        prefix: 'bench-orders-baseline-',
        users: [{ email, password, role: 'customer' }],
        env: cpuProfileEnv(),
      })
    : undefined;
const baseline =
  baselineService === undefined || logs.baseline === undefined
    ? undefined
    : await standOf(baselineService, logNames[logs.baseline]);
const stands = baseline === undefined ? [main] : [main, baseline];

// Distributed mode: 201 to readable with about --small-orders, then about --large-orders orders in the read
// model, before the load (whose orders would leave the read model far beyond the larger size).
const [small, smallBaseline] = mode === 'distributed' ? await visibilityAt(smallOrders, stands) : [];
const [large, largeBaseline] = mode === 'distributed' ? await visibilityAt(largeOrders, stands) : [];

const cases = [
  {
    name: 'POST /orders',
    bare: barePost,
    server: service.writer,
    url: writeUrl,
    path: '/orders',
    method: 'POST' as const,
    body: orderBody,
    headers: postHeaders,
  },
  {
    name: 'GET /orders/{id}',
    bare: bareGet,
    server: service.reader,
    url: readUrl,
    path: orderPath,
    method: 'GET' as const,
    headers: auth,
  },
];
const results = new Map<string, LoadResult[]>();
let catchUp: number | undefined;
const record = (key: string, result: LoadResult) => results.set(key, [...(results.get(key) ?? []), result]);

for (const benchCase of cases) {
  const options = {
    connections,
    method: benchCase.method,
    headers: benchCase.headers,
    ...(benchCase.body === undefined ? {} : { body: benchCase.body }),
  };
  const serviceOptions = { ...options, processes: service.others };
  /** The service's load; every 2xx answer to a POST is an order in its read model. */
  const serviceLoad = async (seconds: number) => {
    const result = await load(benchCase.server, `${benchCase.url}${benchCase.path}`, {
      ...serviceOptions,
      durationSeconds: seconds,
    });
    if (benchCase.method === 'POST') main.counts.ordersPlaced += result.requests - result.unexpected;
    return result;
  };
  // Distributed mode: the baseline log's POST /orders, in the same rounds.
  const baselinePost =
    benchCase.method === 'POST' && baseline !== undefined
      ? (seconds: number) =>
          load(baseline.service.writer, `${baseline.service.writeUrl}/orders`, {
            connections,
            method: 'POST',
            headers: baseline.postHeaders,
            body: baseline.orderBody,
            durationSeconds: seconds,
            processes: baseline.service.others,
          })
      : undefined;
  // Distributed mode: the embedded default's POST /orders, in the same rounds.
  const embeddedPost =
    benchCase.method === 'POST' && embedded !== undefined && embeddedCustomer !== undefined
      ? (seconds: number) =>
          load(embedded.writer, `${embedded.writeUrl}/orders`, {
            connections,
            method: 'POST',
            headers: embeddedCustomer.postHeaders,
            body: embeddedCustomer.orderBody,
            durationSeconds: seconds,
          })
      : undefined;
  await load(benchCase.bare, `${benchCase.bare.url}${benchCase.path}`, { ...options, durationSeconds: 2 });
  await serviceLoad(2);
  if (benchCase.method === 'POST')
    await load(referencePost, `${referencePost.url}/orders`, { ...referenceLoad, durationSeconds: 2 });
  if (embeddedPost !== undefined) await embeddedPost(2);
  if (baselinePost !== undefined) await baselinePost(2);
  for (let round = 0; round < rounds; round++) {
    record(
      `bare ${benchCase.name}`,
      await load(benchCase.bare, `${benchCase.bare.url}${benchCase.path}`, { ...options, durationSeconds }),
    );
    if (benchCase.method === 'POST')
      record(
        `reference ${benchCase.name}`,
        await load(referencePost, `${referencePost.url}/orders`, { ...referenceLoad, durationSeconds }),
      );
    record(`service ${benchCase.name}`, await serviceLoad(durationSeconds));
    if (baselinePost !== undefined) record(`baseline ${benchCase.name}`, await baselinePost(durationSeconds));
    if (embeddedPost !== undefined) record(`embedded ${benchCase.name}`, await embeddedPost(durationSeconds));
  }
  if (mode === 'distributed' && benchCase.method === 'POST') {
    await Promise.all([embedded?.stop(), baselineService?.stop()]);
    // The projections process may trail the command API after a POST load: let it catch up (the order
    // placed now is readable only once every order before it is), so that it does not weigh on what follows.
    catchUp = await caughtUp();
  }
}

// Every POST of the load created an order: how many the read model holds as the visibility phase begins
// (on FerretDB, some reads of the projection scan the whole collection).
const ordersBefore = [...results.entries()]
  .filter(([key]) => key === 'service POST /orders')
  .flatMap(([, runs]) => runs)
  .reduce((sum, run) => sum + run.requests, 0);

// Visibility: 201 to readable, sequentially, the read polled as fast as one client can. In embedded mode one
// run of --visibility orders; in distributed mode, the rounds above, before the load.
const { visible, acknowledged } =
  large === undefined ? await visibilityRound(visibilitySamples) : large.rounds.at(-1)!;

const writerMemory = memoryOf(service.writer.process.pid!);
const readerMemory = memoryOf(service.reader.process.pid!);
await Promise.all([service.stop(), barePost.stop(), bareGet.stop(), referencePost.stop()]);

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
  `${mode} mode${mode === 'distributed' ? ' (writes to the command API, reads from the query API)' : ''}, ` +
    `node ${process.version}, ${connections} connections, ${rounds} rounds of ${durationSeconds} s` +
    (pinned ? '; servers pinned to one core, the load generator to the other' : ''),
);
const table: Record<string, ReturnType<typeof summary>> = {};
for (const benchCase of cases) {
  table[`bare ${benchCase.name}`] = summary(`bare ${benchCase.name}`);
  if (results.has(`reference ${benchCase.name}`))
    table[`reference ${benchCase.name}`] = summary(`reference ${benchCase.name}`);
  table[`service ${benchCase.name}`] = summary(`service ${benchCase.name}`);
  if (results.has(`embedded ${benchCase.name}`))
    table[`embedded ${benchCase.name}`] = summary(`embedded ${benchCase.name}`);
  if (results.has(`baseline ${benchCase.name}`))
    table[`baseline ${benchCase.name}`] = summary(`baseline ${benchCase.name}`);
}
const rate = (key: string) => table[key]!['requests/s (median)'];
const ofReference = rate('service POST /orders') / rate('reference POST /orders');
const referenceLine =
  `POST /orders: service at ${(ofReference * 100).toFixed(0)}% of the reference's requests/s ` +
  `(${figure(rate('service POST /orders'))}/s against ${figure(rate('reference POST /orders'))}/s); issue 5's goal, ` +
  `6,000/s where the reference reached about 9,000/s, is ${(postGoalOfReference * 100).toFixed(0)}% of it, ` +
  `${figure(postGoalOfReference * rate('reference POST /orders'))}/s in this run`;
console.table(table);
for (const benchCase of cases) {
  const ratio = rate(`service ${benchCase.name}`) / rate(`bare ${benchCase.name}`);
  console.log(`${benchCase.name}: service at ${(ratio * 100).toFixed(0)}% of the bare server's requests/s`);
}
console.log(referenceLine);
if (service.others.length > 0) {
  // Where the CPU goes, per request, process by process (medians over the rounds).
  const cpu: Record<string, Record<string, number>> = {};
  for (const benchCase of cases) {
    const runs = results.get(`service ${benchCase.name}`)!;
    cpu[benchCase.name] = Object.fromEntries(
      service.others.map(({ name }) => [name, median(runs.map((r) => r.cpuMicrosPerRequestOf[name]!))]),
    );
  }
  console.log('CPU µs per request, by process (medians of the rounds):');
  console.table(cpu);
}
if (catchUp !== undefined)
  console.log(
    `an order placed right after the POST load was readable ${(catchUp / 1000).toFixed(2)} s later ` +
      '(the projections catching up with the orders of the load)',
  );
const ms = (value: number) => value.toFixed(2);

// Distributed mode: POST /orders against the embedded default's, the same rounds; by requests/s and by CPU
// per request of the embedded process against the command API's alone (what one core per process allows).
const embeddedComparison = (() => {
  const runs = results.get('embedded POST /orders');
  if (runs === undefined) return undefined;
  const serviceRuns = results.get('service POST /orders')!;
  const embeddedRate = median(runs.map((run) => run.requestsPerSecond));
  const serviceRate = median(serviceRuns.map((run) => run.requestsPerSecond));
  const embeddedCpu = median(runs.map((run) => run.cpuMicrosPerRequest));
  const commandApiCpu = median(serviceRuns.map((run) => run.cpuMicrosPerRequest));
  return {
    embeddedRate,
    serviceRate,
    ratio: serviceRate / embeddedRate,
    embeddedCpu,
    commandApiCpu,
    byCpu: embeddedCpu / commandApiCpu,
    embeddedRounds: runs.map((run) => figure(run.requestsPerSecond)).join(' '),
    serviceRounds: serviceRuns.map((run) => figure(run.requestsPerSecond)).join(' '),
    embeddedUnexpected: runs.reduce((sum, run) => sum + run.unexpected + run.errors, 0),
  };
})();
const embeddedLine =
  embeddedComparison === undefined
    ? ''
    : `POST /orders: the distributed mode at ${ratio(embeddedComparison.ratio)} of the embedded default's requests/s ` +
      `in the same rounds (${figure(embeddedComparison.serviceRate)}/s against ${figure(embeddedComparison.embeddedRate)}/s; ` +
      `rounds ${embeddedComparison.serviceRounds} against ${embeddedComparison.embeddedRounds}); by CPU per request, ` +
      `${ratio(embeddedComparison.byCpu)} (the embedded process's ${figure(embeddedComparison.embeddedCpu)} µs over the ` +
      `command API's own ${figure(embeddedComparison.commandApiCpu)} µs: what one core per process would allow)`;
if (embeddedLine) console.log(embeddedLine);

const sizeLine = (size: VisibilityAtSize) =>
  `${figure(size.rounds[0]!.ordersAtStart)} to ${figure(size.rounds.at(-1)!.ordersAtEnd)} orders`;
/** Two stands' sizes, once when they are the same. */
const sizesLine = (one: VisibilityAtSize, other: VisibilityAtSize) =>
  sizeLine(one) === sizeLine(other) ? sizeLine(one) : `${sizeLine(one)} and ${sizeLine(other)}`;
if (small !== undefined && large !== undefined)
  console.log(
    `201 to readable, median p99 of ${plural(visibilityRounds, 'round')} of ${visibilitySamples} orders: ` +
      `${ms(small.medianP99)} ms with ${sizeLine(small)}, ${ms(large.medianP99)} ms with ${sizeLine(large)} ` +
      `(${ratio(large.medianP99 / small.medianP99)}x; goal: under 50 ms at both, within 1.5x)`,
  );
else
  console.log(
    `visibility over ${visibilitySamples} orders: 201 to readable p50 ${ms(percentile(visible, 50))} ms, ` +
      `p99 ${ms(percentile(visible, 99))} ms, max ${ms(Math.max(...visible))} ms (goal: p99 under 20 ms); ` +
      `POST /orders alone p50 ${ms(percentile(acknowledged, 50))} ms, p99 ${ms(percentile(acknowledged, 99))} ms` +
      ` (over ${ordersBefore} orders of the measured POST rounds, and those of the warm-ups, already placed)`,
  );

const memoryLine =
  mode === 'embedded'
    ? `Service memory: ${idleMemory.rssMb} MB RSS idle (after start-up), ${writerMemory.peakMb} MB high-water mark ` +
      `after the loads and the visibility run (${writerMemory.rssMb} MB at the end).`
    : `Memory: command API ${idleMemory.rssMb} MB RSS idle, ${writerMemory.peakMb} MB high-water mark; ` +
      `query API ${readerMemory.peakMb} MB high-water mark.`;
const cpuByProcess =
  service.others.length === 0
    ? ''
    : `CPU µs per request of the other processes (medians of the rounds):\n\n${markdownTable(
        ['case', ...service.others.map(({ name }) => name)],
        cases.map(({ name }) => [
          name,
          ...service.others.map((other) =>
            median(results.get(`service ${name}`)!.map((run) => run.cpuMicrosPerRequestOf[other.name]!)),
          ),
        ]),
      )}\n`;
const ms2 = (value: number) => figure(value, 2);
if (mode === 'embedded')
  writeGoals(values.goals, [
    {
      order: 7,
      path: 'memory under the orders load',
      today: '496 MB',
      checks: [atMost('high-water RSS of the service', writerMemory.peakMb, 300, 'MB', 0)],
      detail:
        `${idleMemory.rssMb} MB idle, ${writerMemory.peakMb} MB high-water after ${rounds} rounds of ${durationSeconds} s ` +
        `of POST and of GET and ${visibilitySamples} orders for visibility (${writerMemory.rssMb} MB at the end)`,
    },
    {
      order: 8,
      path: 'embedded: 201 to readable',
      today: '17.6 ms',
      checks: [below('p99', percentile(visible, 99), 20, 'ms')],
      detail: `${visibilitySamples} orders one after another: p50 ${ms2(percentile(visible, 50))} ms, max ${ms2(Math.max(...visible))} ms`,
    },
  ]);
const roundsCell = (size: VisibilityAtSize) =>
  size.rounds.map((round) => `${ms2(round.p50)} / ${ms2(round.p99)}`).join(', ');
if (small !== undefined && large !== undefined && embeddedComparison !== undefined)
  writeGoals(values.goals, [
    {
      issue: 30,
      order: 1,
      path: 'distributed: 201 to readable, p99, with 1,000 and with 20,000 orders in the read model',
      today: '588 ms at ~9,900 orders, growing with the data',
      checks: [
        below(`p99 with ${sizeLine(small)}`, small.medianP99, 50, 'ms'),
        below(`p99 with ${sizeLine(large)}`, large.medianP99, 50, 'ms'),
        atMost('the larger figure over the smaller', large.medianP99 / small.medianP99, 1.5, 'x', 2),
      ],
      detail:
        `medians of ${plural(visibilityRounds, 'round')} of ${visibilitySamples} orders one after another; p50 / p99 ms by round: ` +
        `${roundsCell(small)} with ${sizeLine(small)}, ${roundsCell(large)} with ${sizeLine(large)}`,
    },
    {
      issue: 30,
      order: 2,
      path: 'distributed: POST /orders, requests/s',
      today: '334/s against ~2,300/s (0.15)',
      checks: [
        atLeast(
          "of the embedded default's, same rounds",
          embeddedComparison.ratio,
          0.5,
          '',
          embeddedComparison.byCpu,
        ),
      ],
      detail:
        `${figure(embeddedComparison.serviceRate)}/s against ${figure(embeddedComparison.embeddedRate)}/s, medians of ` +
        `${plural(rounds, 'round')} of ${durationSeconds} s at ${connections} connections (${embeddedComparison.serviceRounds} against ` +
        `${embeddedComparison.embeddedRounds}); by CPU: the embedded process's ${figure(embeddedComparison.embeddedCpu)} µs ` +
        `a request over the command API's ${figure(embeddedComparison.commandApiCpu)} µs (one core per process)`,
    },
  ]);
/** Distributed mode: the main log against the baseline's, POST /orders in the same rounds. */
const baselineComparison = (() => {
  const runs = results.get('baseline POST /orders');
  if (runs === undefined || baseline === undefined || logs.baseline === undefined) return undefined;
  const serviceRuns = results.get('service POST /orders')!;
  const baselineRate = median(runs.map((run) => run.requestsPerSecond));
  const serviceRate = median(serviceRuns.map((run) => run.requestsPerSecond));
  const name = logNames[logs.baseline];
  return {
    name,
    baselineRate,
    serviceRate,
    ratio: serviceRate / baselineRate,
    serviceRounds: serviceRuns.map((run) => figure(run.requestsPerSecond)).join(' '),
    baselineRounds: runs.map((run) => figure(run.requestsPerSecond)).join(' '),
    line:
      `POST /orders on the ${logNames[logs.log]}: ${ratio(serviceRate / baselineRate)} of the ${name}'s requests/s ` +
      `in the same rounds (${figure(serviceRate)}/s against ${figure(baselineRate)}/s; rounds ` +
      `${serviceRuns.map((run) => figure(run.requestsPerSecond)).join(' ')} against ${runs.map((run) => figure(run.requestsPerSecond)).join(' ')})`,
  };
})();
if (baselineComparison !== undefined) console.log(baselineComparison.line);
if (smallBaseline !== undefined && largeBaseline !== undefined && small !== undefined && large !== undefined)
  console.log(
    `201 to readable, median p99 on the ${logNames[logs.log]} against the ${baselineComparison?.name}: ` +
      `${ms(small.medianP99)} against ${ms(smallBaseline.medianP99)} ms at about ${figure(smallOrders)} orders, ` +
      `${ms(large.medianP99)} against ${ms(largeBaseline.medianP99)} ms at about ${figure(largeOrders)}`,
  );
if (
  logs.log === 'postgres' &&
  logs.baseline === 'sqlite-file' &&
  baselineComparison !== undefined &&
  small !== undefined &&
  large !== undefined &&
  smallBaseline !== undefined &&
  largeBaseline !== undefined
)
  writeGoals(values.goals, [
    {
      issue: 40,
      order: 2,
      path: 'distributed on the PostgreSQL log: POST /orders, requests/s',
      today: 'the shared file only',
      checks: [atLeast("of the shared file's, same rounds", baselineComparison.ratio, 0.8)],
      detail:
        `${figure(baselineComparison.serviceRate)}/s against ${figure(baselineComparison.baselineRate)}/s, medians of ` +
        `${plural(rounds, 'round')} of ${durationSeconds} s at ${connections} connections (${baselineComparison.serviceRounds} ` +
        `against ${baselineComparison.baselineRounds})`,
    },
    {
      issue: 40,
      order: 3,
      path: 'distributed on the PostgreSQL log: 201 to readable, p99, at 1,000 and at 20,000 orders',
      today: 'shared file: p99 49.9 ms (2026-11-27, polled every 10 ms)',
      checks: [
        below(`p99 with ${sizeLine(small)}`, small.medianP99, 50, 'ms'),
        atMost("over the shared file's, same rounds", small.medianP99 / smallBaseline.medianP99, 1, 'x', 2),
        below(`p99 with ${sizeLine(large)}`, large.medianP99, 50, 'ms'),
        atMost("over the shared file's, same rounds", large.medianP99 / largeBaseline.medianP99, 1, 'x', 2),
      ],
      detail:
        `medians of ${plural(visibilityRounds, 'round')} of ${visibilitySamples} orders one after another, the logs ` +
        `taking turns; p50 / p99 ms by round on PostgreSQL ${roundsCell(small)} and on the shared file ` +
        `${roundsCell(smallBaseline)} with ${sizesLine(small, smallBaseline)}; on PostgreSQL ` +
        `${roundsCell(large)} and on the shared file ${roundsCell(largeBaseline)} with ${sizesLine(large, largeBaseline)}`,
    },
  ]);
const visibilityTable = (sizes: readonly VisibilityAtSize[]) =>
  markdownTable(
    [
      'read model',
      'round',
      'orders in the read model',
      'p50 ms',
      'p99 ms',
      'max ms',
      'POST /orders alone p50 / p99 ms',
    ],
    sizes.flatMap((size) =>
      size.rounds.map((round, index) => [
        index === 0 ? `filled to ${figure(size.target)} (${fillLine(size.fill)})` : '',
        String(index + 1),
        `${figure(round.ordersAtStart)} to ${figure(round.ordersAtEnd)}`,
        ms2(round.p50),
        ms2(round.p99),
        ms2(round.max),
        `${ms2(percentile(round.acknowledged, 50))} / ${ms2(percentile(round.acknowledged, 99))}`,
      ]),
    ),
  );
const embeddedSection =
  embeddedComparison === undefined
    ? ''
    : `The embedded default (its own process, started as in \`npm run bench:orders\`, pinned like the others),
in the same rounds as the distributed mode's POST /orders, after it (issue 30's goal: at least 0.5 of its
requests/s):

${markdownTable(
  ['case', 'requests/s (median)', 'p50 ms', 'p99 ms', 'server CPU µs/request', 'rounds (requests/s)'],
  ['embedded POST /orders', 'service POST /orders'].map((key) => [
    key === 'service POST /orders' ? 'distributed POST /orders (the command API)' : key,
    figure(rate(key)),
    table[key]!['p50 ms'],
    table[key]!['p99 ms'],
    table[key]!['server CPU µs/request'],
    results
      .get(key)!
      .map((run) => figure(run.requestsPerSecond))
      .join(' '),
  ]),
)}

**${embeddedLine}.**
`;
const visibilitySection =
  small !== undefined && large !== undefined
    ? `**Visibility**, from reading the 201 to the first \`GET /orders/{id}\` (without a Consistency-Token) that finds
the order, ${visibilityRounds} rounds of ${visibilitySamples} orders one after another at each of two sizes of the read model:
first filled to about ${figure(small.target)} orders (${connections} at once, then the projections let catch up), then
topped up to about ${figure(large.target)}, both before the POST load. Each round's own orders add to the read model, as
its column says.

${visibilityTable([small, large])}

**Median p99: ${ms2(small.medianP99)} ms with ${sizeLine(small)}, ${ms2(large.medianP99)} ms with ${sizeLine(large)}**
(${ratio(large.medianP99 / small.medianP99)}x; issue 30's goal: under 50 ms at both, within 1.5x).${
        catchUp === undefined
          ? ''
          : ` After the POST load, the projections caught up in ${figure(catchUp / 1000, 2)} s.`
      }`
    : `**Visibility**, ${visibilitySamples} orders one after another, from reading the 201 to the first \`GET /orders/{id}\`
(without a Consistency-Token) that finds the order: **p50 ${ms2(percentile(visible, 50))} ms, p99 ${ms2(percentile(visible, 99))} ms**,
max ${ms2(Math.max(...visible))} ms (goal: p99 under 20 ms). \`POST /orders\` alone: p50 ${ms2(percentile(acknowledged, 50))} ms,
p99 ${ms2(percentile(acknowledged, 99))} ms. The read model already held ${figure(ordersBefore)} orders from the load.${
        catchUp === undefined
          ? ''
          : ` After the POST load, the projections caught up in ${figure(catchUp / 1000, 2)} s.`
      }`;
const baselineSection =
  baselineComparison === undefined || smallBaseline === undefined || largeBaseline === undefined
    ? ''
    : `**The ${baselineComparison.name} beside it**: the same four processes on the ${baselineComparison.name}
(\`--baseline-log ${logs.baseline}\`), started with it, their POST /orders after the service's in every round, their
visibility rounds taking turns with its:

${markdownTable(
  ['case', 'requests/s (median)', 'p50 ms', 'p99 ms', 'command API CPU µs/request', 'rounds (requests/s)'],
  (['service POST /orders', 'baseline POST /orders'] as const).map((key) => [
    key === 'service POST /orders'
      ? `POST /orders on the ${logNames[logs.log]}`
      : `POST /orders on the ${baselineComparison.name}`,
    figure(rate(key)),
    table[key]!['p50 ms'],
    table[key]!['p99 ms'],
    table[key]!['server CPU µs/request'],
    results
      .get(key)!
      .map((run) => figure(run.requestsPerSecond))
      .join(' '),
  ]),
)}

CPU µs per POST /orders of the ${baselineComparison.name}'s other processes (medians of the rounds): ${baselineService!.others
        .map(
          ({ name }) =>
            `${name} ${figure(median(results.get('baseline POST /orders')!.map((run) => run.cpuMicrosPerRequestOf[name]!)))}`,
        )
        .join(', ')}.

**${baselineComparison.line}.**

Visibility on the ${baselineComparison.name}, in the same rounds:

${visibilityTable([smallBaseline, largeBaseline])}

**Median p99 on the ${logNames[logs.log]} against the ${baselineComparison.name}: ${ms2(small!.medianP99)} against
${ms2(smallBaseline.medianP99)} ms at about ${figure(smallOrders)} orders, ${ms2(large!.medianP99)} against
${ms2(largeBaseline.medianP99)} ms at about ${figure(largeOrders)}.**`;
writeReport(
  values.report,
  `## Orders${mode === 'distributed' ? ' (distributed mode)' : ''}: POST /orders, GET /orders/{id}, 201 to readable

\`npm run bench:orders${mode === 'distributed' ? ':distributed' : ''}\` (bench/orders-http.ts): ${
    mode === 'embedded'
      ? 'the embedded service as `npm start` runs it'
      : 'the four processes of the distributed mode (writes to the command API, reads from the query API, ' +
        `FerretDB and Kafka of scripts/services.sh, the ${logNames[logs.log]}${logs.log === 'postgres' ? ' (a fresh database)' : ''})`
  }, one customer (made with the admin CLI) with a stored address. Every POST creates an order of two lines
and a note (RS256 bearer token, zod, catalogue and address lookups, the decider, the append). Baselines: bare
node:http servers answering the same bytes and headers, the POST one after reading and parsing the JSON
body. ${connections} connections, ${rounds} rounds of ${durationSeconds} s after a warm-up, alternating; medians.

${loadComparison(cases.map(({ name }) => ({ name, bare: results.get(`bare ${name}`)!, service: results.get(`service ${name}`)! })))}

The reference of issue 5's goal (bench/support/reference-order-server.ts: Express 5, an RS256 token verified
on every request, the service's zod schema, one INSERT into node:sqlite in WAL mode), in the same rounds:

${markdownTable(
  ['case', 'requests/s (median)', 'p50 ms', 'p99 ms', 'server CPU µs/request'],
  ['reference POST /orders', 'service POST /orders'].map((key) => [
    key,
    figure(rate(key)),
    table[key]!['p50 ms'],
    table[key]!['p99 ms'],
    table[key]!['server CPU µs/request'],
  ]),
)}

**${referenceLine}.**

${[cpuByProcess, embeddedSection, visibilitySection, baselineSection]
  .map((part) => part.trim())
  .filter((part) => part !== '')
  .join('\n\n')}

${memoryLine}`,
);
