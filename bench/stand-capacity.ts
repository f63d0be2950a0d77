// Per-operation costs on the stand of hosts, for docs/capacity.md: against a running stand
// (`eval "$(STAND_ID=3 scripts/stand.sh env)"`, as root, the stand started with
// STAND_PROCESS_ENV='USER_WRITE_LIMIT_ORDERS=0 STAFF_WRITE_LIMIT_ORDERS=0'), one operation kind at a time,
// each a steady closed-loop load through the router for a while, then waited on until the projections, the
// relay and the webhooks have caught up, so that their work is counted with the operation that caused it:
//   POST /orders, confirm, payment, ship, deliver, GET /orders/{id}, GET /orders (a customer's first page).
// For each: CPU ms per operation of every stand process (less what the stand spends idle in the same time),
// events appended and their bytes (table and WAL), read-store commands (FerretDB's counters), Kafka messages,
// bytes through each store host's interface. Then the projections process's ceiling: with it and the
// dispatchers stopped, a backlog of orders is placed; it is started again and timed until its checkpoint
// reaches the log's head.
// One webhook subscription (every order event, to the stand's receiver) is active throughout.
// Run: npm run bench:capacity -- [--concurrency N] [--seconds S] [--backlog N] [--report FILE]
// Not part of `npm test`: it needs the stand, and root (it stops and starts stand processes).
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { benchCustomer } from './support/bench-customer.ts';
import { figure, markdownTable, writeReport } from './support/report.ts';
import { between, standMeters, type Difference } from './support/stand-meters.ts';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '15' },
    backlog: { type: 'string', default: '600' },
    /** The writes go through the first this many orders placed (FerretDB's pool: docs/capacity.md). */
    orders: { type: 'string', default: '600' },
    report: { type: 'string' },
  },
});
const concurrency = Number(values.concurrency);
const phaseSeconds = Number(values.seconds);
const backlogOrders = Number(values.backlog);
const writeOrders = Number(values.orders);

const required = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: eval "$(STAND_ID=3 scripts/stand.sh env)" first`);
  return value;
};
const baseUrl = required('BASE_URL');
const receiverUrl = required('RECEIVER_URL');
const stateDir = required('STAND_STATE_DIR');
const standId = required('STAND_ID');
const hostAddresses = Object.fromEntries(
  required('STAND_HOSTS')
    .split(' ')
    .map((pair) => pair.split('=') as [string, string]),
);
const repoDir = join(import.meta.dirname, '..');
const standScript = join(repoDir, 'scripts/stand.sh');
const stand = (...args: string[]) =>
  promisify(execFile)(standScript, args, { env: { ...process.env, STAND_ID: standId } });

const meters = standMeters({
  standId,
  stateDir,
  eventLogUrl: required('EVENT_LOG_URL'),
  kafkaBrokers: required('KAFKA_BROKERS').split(','),
  ferretdbMetricsUrl: `http://${hostAddresses.reads}:8088/debug/metrics`,
  hosts: Object.keys(hostAddresses),
});
const mongo = await MongoClient.connect(required('MONGODB_URL'));
const checkpoints = mongo.db(required('MONGODB_DATABASE')).collection<{
  _id: string;
  positions?: Record<string, string>;
}>('projection_checkpoints');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------------------------------ the people --

const password = 'capacity-bench-password';
const addUser = (email: string, role: string) => {
  try {
    execFileSync(
      join(repoDir, 'node_modules/.bin/node'),
      [join(repoDir, 'cli/admin.ts'), 'user:add', '--email', email, '--role', role, '--password-stdin'],
      { input: `${password}\n`, stdio: ['pipe', 'ignore', 'pipe'] },
    );
  } catch (error) {
    if (!String((error as { stderr?: Buffer }).stderr).includes('exists')) throw error;
  }
};
const signIn = async (email: string) => {
  const response = await fetch(`${baseUrl}/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username: email, password }),
  });
  if (response.status !== 200) throw new Error(`sign-in ${email}: ${response.status}`);
  const { access_token: token } = (await response.json()) as { access_token: string };
  return { Authorization: `Bearer ${token}` };
};

addUser('capacity-customer@example.com', 'customer');
addUser('capacity-staff@example.com', 'staff');
addUser('capacity-admin@example.com', 'admin');
const customer = await benchCustomer(baseUrl, { email: 'capacity-customer@example.com', password });
const staff = await signIn('capacity-staff@example.com');
const admin = await signIn('capacity-admin@example.com');
const subscribed = await fetch(`${baseUrl}/webhooks`, {
  method: 'POST',
  headers: { ...admin, 'Content-Type': 'application/json' },
  body: JSON.stringify({
    url: `${receiverUrl}/hooks/capacity`,
    events: ['order.created', 'order.status_changed', 'payment.received'],
  }),
});
if (subscribed.status !== 201) throw new Error(`subscribe: ${subscribed.status} ${await subscribed.text()}`);

// ---------------------------------------------------------------------------------------- caught up --

let received = ((await (await fetch(`${receiverUrl}/received?from=0`)).json()) as unknown[]).length;
const countReceived = async () => {
  received += ((await (await fetch(`${receiverUrl}/received?from=${received}`)).json()) as unknown[]).length;
  return received;
};
/** The bench's own reads of the checkpoints, left out of the read store's commands per operation. */
let checkpointReads = 0;
const checkpointLow = async () => {
  checkpointReads++;
  const positions = (await checkpoints.findOne({ _id: 'positions' }))?.positions ?? {};
  // The relay saves its position only when a batch had public events for it: the read models' say how far
  // the group got (the relay's messages are awaited through Kafka's offsets in caughtUp).
  const all = Object.entries(positions)
    .filter(([name]) => name !== 'event-relay')
    .map(([, position]) => BigInt(position));
  return all.length === 0 ? 0n : all.reduce((low, position) => (position < low ? position : low));
};

/**
 * Until the projections' every checkpoint has reached the log's head, the dispatchers have committed every
 * relayed message, and the receiver has stopped receiving (then a second of quiet, so that the work
 * caught up with is inside the reading that follows).
 */
const caughtUp = async (timeoutMs = 120_000) => {
  const deadline = performance.now() + timeoutMs;
  let last = '';
  for (;;) {
    if (performance.now() > deadline) {
      throw new Error(`the stand did not catch up: ${await checkpointLow()} of ${await meters.logHead()}`);
    }
    const head = await meters.logHead();
    const lag = await meters.consumerLag('webhook-dispatcher', 'order-events');
    const now = `${await countReceived()} ${JSON.stringify((await meters.read()).kafkaMessages)}`;
    if ((await checkpointLow()) >= head && lag === 0 && now === last) break;
    last = now;
    await sleep(1000);
  }
};

// ------------------------------------------------------------------------------------------ the load --

type Outcome = { ok: number; other: Record<string, number>; latencies: number[] };

/** `concurrency` loops, each doing `step` until it returns false or the time is up. */
const closedLoop = async (seconds: number, step: () => Promise<number | null>): Promise<Outcome> => {
  const outcome: Outcome = { ok: 0, other: {}, latencies: [] };
  const end = performance.now() + seconds * 1000;
  const loop = async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const status = await step();
      if (status === null) return;
      outcome.latencies.push(performance.now() - started);
      if (status >= 200 && status < 300) outcome.ok++;
      else outcome.other[status] = (outcome.other[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return outcome;
};

type PlacedOrder = { id: string; total: unknown };
const placed: PlacedOrder[] = [];

const placeOrder = async () => {
  const response = await fetch(`${baseUrl}/orders`, {
    method: 'POST',
    headers: customer.postHeaders,
    body: customer.orderBody,
  });
  const body = (await response.json()) as PlacedOrder;
  if (response.status === 201) placed.push({ id: body.id, total: body.total });
  return response.status;
};

/** A staff write on each placed order in turn, until every one has had it. */
const onEachOrder = (path: string, body: (order: PlacedOrder) => unknown) => {
  let next = 0;
  return async () => {
    const order = next < writeOrders ? placed[next++] : undefined;
    if (!order) return null;
    const payload = body(order);
    const response = await fetch(`${baseUrl}/orders/${order.id}/${path}`, {
      method: 'POST',
      headers: { ...staff, ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    await response.arrayBuffer();
    return response.status;
  };
};

const read = (path: () => string) => async () => {
  const response = await fetch(`${baseUrl}${path()}`, { headers: customer.auth });
  await response.arrayBuffer();
  return response.status;
};
const anyPlacedOrder = () => `/orders/${placed[Math.floor(Math.random() * placed.length)]!.id}`;

// -------------------------------------------------------------------------------------- the phases --

type Phase = { name: string; outcome: Outcome; difference: Difference; ownReads: number };

/** One reading before the load and one after the stand caught up with it. */
const measured = async (name: string, run: () => Promise<Outcome>): Promise<Phase> => {
  await caughtUp();
  const before = await meters.read();
  const readsBefore = checkpointReads;
  const outcome = await run();
  await caughtUp();
  const difference = between(before, await meters.read());
  const ownReads = checkpointReads - readsBefore;
  process.stderr.write(
    `[capacity] ${name}: ${outcome.ok} ok ${JSON.stringify(outcome.other)} in ${figure(difference.seconds, 1)} s\n`,
  );
  process.stderr.write(`[capacity] ${JSON.stringify({ name, ok: outcome.ok, difference, ownReads })}\n`);
  return { name, outcome, difference, ownReads };
};

process.stderr.write('[capacity] idle...\n');
await caughtUp();
const idleBefore = await meters.read();
await sleep(phaseSeconds * 1000);
const idle = between(idleBefore, await meters.read());
process.stderr.write(`[capacity] ${JSON.stringify({ name: 'idle', idle })}\n`);

const phases: Phase[] = [];
phases.push(await measured('POST /orders', () => closedLoop(phaseSeconds, placeOrder)));
phases.push(await measured('GET /orders/{id}', () => closedLoop(phaseSeconds, read(anyPlacedOrder))));
phases.push(
  await measured('GET /orders', () =>
    closedLoop(
      phaseSeconds,
      read(() => '/orders'),
    ),
  ),
);

// ------------------------------------------------------------------------- the projections' ceiling --

process.stderr.write(`[capacity] the projections' ceiling: a backlog of ${backlogOrders} orders...\n`);
await caughtUp();
for (const name of ['proj', 'disp1', 'disp2']) await stand('kill', name);
let backlogPlaced = 0;
await closedLoop(3600, async () => {
  if (backlogPlaced >= backlogOrders) return null;
  backlogPlaced++;
  return placeOrder();
});
const head = await meters.logHead();
const stoppedAt = await checkpointLow();
const eventsBehind = await meters.eventsBetween(stoppedAt);
const startedAt = performance.now();
const foldReadsBefore = checkpointReads;
const foldBefore = await meters.read();
const started = stand('start', 'proj');
// From the start command (the process's start-up included) until its checkpoint reaches the head.
while ((await checkpointLow()) < head) await sleep(100);
const fold = between(foldBefore, await meters.read());
const foldOwnReads = checkpointReads - foldReadsBefore;
const eventsFolded = eventsBehind;
const foldSeconds = (performance.now() - startedAt) / 1000;
await started;
for (const name of ['disp1', 'disp2']) await stand('start', name);
await caughtUp(600_000);

// The writes last: FerretDB 1.24 keeps a PostgreSQL connection for good on some of the folds of a
// transition, and answers nothing once its pool is spent (see docs/capacity.md).
phases.push(
  await measured('confirm', () =>
    closedLoop(
      600,
      onEachOrder('confirm', () => undefined),
    ),
  ),
);
phases.push(
  await measured('payment', () =>
    closedLoop(
      600,
      onEachOrder('payments', (order) => ({ amount: order.total, reference: `cap-${order.id}` })),
    ),
  ),
);
phases.push(
  await measured('ship', () =>
    closedLoop(
      600,
      onEachOrder('ship', () => ({ carrier: 'Stand Post', trackingNumber: 'T-1' })),
    ),
  ),
);
phases.push(
  await measured('deliver', () =>
    closedLoop(
      600,
      onEachOrder('deliver', () => undefined),
    ),
  ),
);

// ----------------------------------------------------------------------------------------- the report --

const stores = ['log1', 'log2', 'reads-postgres', 'ferretdb', 'kafka'];
const services = ['router', 'via', 'cmd1', 'cmd2', 'qry1', 'qry2', 'proj', 'disp1', 'disp2', 'receiver'];
const processNames = [...services, ...stores];
const idleMsPerSecond = (name: string) => (idle.cpuMs[name] ?? 0) / idle.seconds;
const cpuPerOperation = (phase: Phase, name: string) =>
  (((phase.difference.cpuMs[name] ?? 0) - idleMsPerSecond(name) * phase.difference.seconds) * 1000) /
  phase.outcome.ok;
const group = (phase: Phase, names: string[]) =>
  names.reduce((sum, name) => sum + cpuPerOperation(phase, name), 0);
const perOperation = (phase: Phase, value: number, digits = 2) => figure(value / phase.outcome.ok, digits);
const sum = (record: Record<string, number>) => Object.values(record).reduce((a, b) => a + b, 0);
/** The services' commands: the drivers' monitoring (hello) and the bench's own checkpoint reads left out. */
const serviceCommands = (commands: Record<string, number>, ownReads: number) => {
  const { hello: _hello, ping: _ping, ...rest } = commands;
  return { ...rest, find: (rest.find ?? 0) - ownReads };
};
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? 0;

const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoDir }).toString().trim();

const loadTable = markdownTable(
  ['operation', 'acknowledged', 'other answers', 'requests/s', 'p50 ms', 'p99 ms'],
  phases.map((phase) => {
    const loadSeconds = phase.outcome.latencies.reduce((a, b) => a + b, 0) / 1000 / concurrency;
    return [
      phase.name,
      phase.outcome.ok,
      JSON.stringify(phase.outcome.other) === '{}' ? '-' : JSON.stringify(phase.outcome.other),
      figure(phase.outcome.ok / loadSeconds, 0),
      figure(percentile(phase.outcome.latencies, 50), 1),
      figure(percentile(phase.outcome.latencies, 99), 1),
    ];
  }),
);

const cpuTable = markdownTable(
  ['operation', ...processNames.map((name) => `${name} µs`), 'all µs'],
  phases.map((phase) => [
    phase.name,
    ...processNames.map((name) => figure(cpuPerOperation(phase, name), 0)),
    figure(group(phase, processNames), 0),
  ]),
);

const storesTable = markdownTable(
  [
    'operation',
    'events appended',
    'event table bytes',
    'WAL bytes',
    'read-store commands',
    'of which',
    'Kafka messages',
    'bytes at log1',
    'bytes at reads',
    'bytes at kafka',
  ],
  phases.map((phase) => {
    const { difference } = phase;
    const services = serviceCommands(difference.readStoreCommands, phase.ownReads);
    const commands = Object.entries(services)
      .filter(([, count]) => count / phase.outcome.ok >= 0.05)
      .sort(([, a], [, b]) => b - a)
      .map(([name, count]) => `${name} ${perOperation(phase, count)}`)
      .join(', ');
    return [
      phase.name,
      perOperation(phase, difference.events),
      perOperation(phase, difference.eventBytes, 0),
      perOperation(phase, difference.walBytes, 0),
      perOperation(phase, sum(services)),
      commands,
      perOperation(phase, sum(difference.kafkaMessages)),
      perOperation(phase, difference.hostBytes.log1 ?? 0, 0),
      perOperation(phase, difference.hostBytes.reads ?? 0, 0),
      perOperation(phase, difference.hostBytes.kafka ?? 0, 0),
    ];
  }),
);

const foldedPerSecond = eventsFolded / foldSeconds;
const perEvent = (name: string) => figure(((fold.cpuMs[name] ?? 0) * 1000) / eventsFolded, 0);
const foldCommands = serviceCommands(fold.readStoreCommands, foldOwnReads);
const foldCommandList = Object.entries(foldCommands)
  .filter(([, count]) => count > 0)
  .map(([name, count]) => `${name} ${count}`)
  .join(', ');
const ceiling = [
  `Backlog: ${figure(eventsBehind)} events (${figure(backlogOrders)} orders placed with the projections process`,
  `and both dispatchers stopped). From the command that starts the process (its start-up included) until its`,
  `checkpoint reaches the head: ${figure(eventsFolded)} events folded, with the relay to Kafka, in ${figure(foldSeconds, 1)} s:`,
  `**${figure(foldedPerSecond)} events/s**. CPU per event in that time: proj ${perEvent('proj')} µs`,
  `(${figure((fold.cpuMs.proj ?? 0) / 10 / foldSeconds, 0)} % of a core), FerretDB ${perEvent('ferretdb')} µs and its`,
  `PostgreSQL ${perEvent('reads-postgres')} µs, the log's primary ${perEvent('log1')} µs, Kafka ${perEvent('kafka')} µs.`,
  `Read-store commands: ${figure(sum(foldCommands) / eventsFolded, 3)} per event (${foldCommandList});`,
  `Kafka messages ${figure(sum(fold.kafkaMessages) / eventsFolded, 2)} per event.`,
].join(' ');

const idleLine = `Idle, per second (subtracted above): ${processNames
  .map((name) => `${name} ${figure(idleMsPerSecond(name), 1)} ms`)
  .join(', ')}.`;

const report = [
  `### The stand's per-operation costs, ${date} UTC, commit ${commit}`,
  '',
  `${concurrency} connections through the router, ${phaseSeconds} s for POST /orders and each read phase; each`,
  `other write on the first ${writeOrders} orders placed. One webhook subscription to every order event.`,
  '',
  loadTable,
  '',
  '**CPU per operation, per process** (µs; each process with its children; less its idle rate):',
  '',
  cpuTable,
  '',
  idleLine,
  '',
  '**The stores, per operation**:',
  '',
  storesTable,
  '',
  `**The projections process's ceiling**: ${ceiling}`,
].join('\n');

process.stdout.write(`${report}\n`);
writeReport(values.report, report);
await meters.close();
await mongo.close();
