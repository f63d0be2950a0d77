import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadSettings,
  runCase,
  violationsOf,
  type CaseFigures,
  type FaultCase,
} from './support/fault-case.ts';
import type { FaultTarget } from './support/fault-target.ts';
import { figuresTable } from './support/figures.ts';
import { loopbackTarget } from './support/loopback-target.ts';
import { logLinesNaming } from './support/log-lines.ts';
import { describeMissing } from './support/missing-webhooks.ts';
import { receiverClient, type ReceiverClient } from './support/receiver-client.ts';
import { openShop, type Shop } from './support/shop.ts';
import { standTarget } from './support/stand-target.ts';
import type { Subscriber } from './support/webhook-check.ts';

// The distributed mode on a stand of hosts (scripts/stand.sh: each process in a network namespace of its
// own), under a steady load of customers and staff through the router, with two webhook subscriptions to
// the receiver host; seven faults, one at a time, each ended and checked before the next. The checks and
// the figures are in test/hosts/support/fault-case.ts; docs/distributed.md ("The fault suite") explains them.
// HOSTS_TARGET=loopback runs the load and the checker on one loopback instead (no stand; only the kills).

const report = (text: string) => process.stdout.write(`  [hosts] ${text}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = 1000;

const cases: FaultCase[] = [
  {
    name: '1 kill APIs',
    fault: 'SIGKILL of cmd1 and qry1, restarted',
    holdMs: 10 * seconds,
    healGoalMs: 15 * seconds,
    begin: (fault) => Promise.all([fault('kill', 'cmd1'), fault('kill', 'qry1')]).then(() => undefined),
    end: (fault) => Promise.all([fault('start', 'cmd1'), fault('start', 'qry1')]).then(() => undefined),
  },
  {
    name: '2 projections cut',
    fault: 'proj host link down, then up',
    holdMs: 10 * seconds,
    healGoalMs: 15 * seconds,
    begin: (fault) => fault('cut', 'proj'),
    end: (fault) => fault('heal', 'proj'),
  },
  {
    name: '3 Kafka killed',
    fault: 'kafka SIGKILLed, restarted',
    holdMs: 10 * seconds,
    healGoalMs: 15 * seconds,
    begin: (fault) => fault('kill', 'kafka'),
    end: (fault) => fault('start', 'kafka'),
  },
  {
    name: '4 log failover',
    fault: 'log primary killed, standby promoted',
    holdMs: 0,
    healGoalMs: 30 * seconds,
    healFrom: 'begin',
    // The load goes on for as long as in the other cases, on the new primary.
    afterHealMs: 10 * seconds,
    begin: (fault) => fault('failover'),
    end: async () => {},
  },
  {
    name: '5 dispatchers',
    fault: 'disp1 killed, disp2 cut from kafka',
    holdMs: 10 * seconds,
    healGoalMs: 15 * seconds,
    begin: (fault) =>
      Promise.all([fault('kill', 'disp1'), fault('cut-between', 'disp2', 'kafka')]).then(() => undefined),
    end: (fault) =>
      Promise.all([fault('heal-between', 'disp2', 'kafka'), fault('start', 'disp1')]).then(() => undefined),
  },
  {
    name: '6 read store killed',
    fault: 'ferretdb killed, restarted',
    holdMs: 10 * seconds,
    healGoalMs: 15 * seconds,
    begin: (fault) => fault('kill', 'ferretdb'),
    end: (fault) => fault('start', 'ferretdb'),
  },
  {
    name: '7a packet loss',
    fault: '5 % loss, API hosts to stores',
    holdMs: 20 * seconds,
    healGoalMs: 15 * seconds,
    begin: (fault) => fault('loss', '5'),
    end: (fault) => fault('loss', 'off'),
  },
  {
    name: '7b delay',
    fault: '100 ms delay, API hosts to stores',
    holdMs: 20 * seconds,
    healGoalMs: 15 * seconds,
    begin: (fault) => fault('delay', '100'),
    end: (fault) => fault('delay', 'off'),
  },
];

/** What the stand must do between two cases: a failed-over log gets a new standby before the next fault. */
const afterCase: Record<string, (fault: FaultTarget['fault']) => Promise<void>> = {
  '4 log failover': (fault) => fault('rebuild-standby'),
};

const onLoopback = process.env['HOSTS_TARGET'] === 'loopback';
/** The loopback harness's dispatchers hand work over as fast as the two-of-each test's. */
const loopbackSettings = {
  KAFKA_SESSION_TIMEOUT_MS: '6000',
  WEBHOOK_LEASE_MS: '4000',
  WEBHOOK_TIMEOUT_MS: '2000',
};

let target: FaultTarget;
let stopTarget = async () => {};
let shop: Shop;
let receiver: ReceiverClient;
let subscribers: Subscriber[];
const figures: CaseFigures[] = [];
const suiteStarted = performance.now();

beforeAll(async () => {
  if (onLoopback) {
    const loopback = await loopbackTarget(loopbackSettings);
    target = loopback.target;
    stopTarget = loopback.stop;
  } else target = await standTarget();
  shop = await openShop(target);
  receiver = receiverClient(target.receiverUrl);
  await receiver.all();
  subscribers = await shop.subscribe();
  report(`target ${onLoopback ? 'loopback' : 'stand'} at ${target.baseUrl}; receiver ${target.receiverUrl}`);
});

afterAll(async () => {
  await shop?.unsubscribe();
  await shop?.close();
  await stopTarget();
  if (figures.length === 0) return;
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  const commit = `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' (with changes not committed)' : ''}`;
  const table = figuresTable(figures, {
    settings: target.settings,
    load: loadSettings,
    when: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit,
  });
  const total = `Suite time: ${((performance.now() - suiteStarted) / 1000).toFixed(0)} s.`;
  process.stdout.write(`\n${table}\n${total}\n`);
  mkdirSync('test-output', { recursive: true });
  writeFileSync('test-output/hosts-figures.md', `${table}\n${total}\n`);
});

/**
 * HOSTS_CASES picks cases by the number their name starts with (`6`, `7a,7b`), and HOSTS_REPEAT runs each
 * that many times: for chasing what fails now and then. Unset, every case once.
 */
const picked = (process.env['HOSTS_CASES'] ?? '').split(',').filter(Boolean);
const repeat = Number(process.env['HOSTS_REPEAT'] ?? '1');
const runs = cases
  .filter((faultCase) => picked.length === 0 || picked.some((id) => faultCase.name.startsWith(`${id} `)))
  .flatMap((faultCase) => Array.from({ length: Math.max(1, repeat) }, (_, run) => ({ faultCase, run })));

describe('the distributed mode on a stand of hosts, under faults', () => {
  for (const { faultCase, run } of runs) {
    const unavailable = onLoopback && faultCase.name !== '1 kill APIs';
    it.skipIf(unavailable)(
      `${faultCase.name}${run > 0 ? ` (run ${run + 1})` : ''}: ${faultCase.fault}: loses nothing acknowledged and heals`,
      async () => {
        const result = await runCase({ target, shop, receiver, subscribers, report }, faultCase);
        figures.push(result);
        await afterCase[faultCase.name]?.(target.fault);
        const violations = violationsOf(result);
        report(
          `${faultCase.name}: ${result.acknowledged} writes acknowledged on ${result.orders} orders, ` +
            `${result.answers.perSecond.toFixed(1)} req/s; ${violations.length === 0 ? 'no violation' : violations.join('; ')}`,
        );
        if (!result.readModelsEqualLog) report(`projections:verify: ${result.verifyReport}`);
        const notOk = Object.entries(result.answers.notOk);
        if (notOk.length > 0)
          report(`answers not 2xx: ${notOk.map(([what, n]) => `${what} x${n}`).join(', ')}`);
        const forbidden = Object.entries(result.answers.forbidden);
        if (forbidden.length > 0)
          report(`forbidden answers: ${forbidden.map(([what, n]) => `${what} x${n}`).join(', ')}`);
        for (const line of describeMissing(result.webhooks.missing, target.logsDir)) report(line);
        const serverErrors = result.answers.serverErrorRequestIds;
        if (target.logsDir !== undefined && serverErrors.length > 0) {
          for (const line of logLinesNaming(target.logsDir, serverErrors)) report(`5xx: ${line}`);
          // FerretDB knows no request id: the errors it answered, which a driver's error may have been.
          const ferretErrors = logLinesNaming(target.logsDir, ['errmsg', '\tERROR\t'], (name) =>
            name.startsWith('ferretdb'),
          );
          for (const line of ferretErrors) report(`5xx, read store: ${line}`);
        }
        for (const mismatch of result.readBackMismatches.slice(0, 5))
          report(`read back ${mismatch.orderId}: ${mismatch.found}`);
        expect(violations).toEqual([]);
        await sleep(0);
      },
    );
  }
  if (onLoopback)
    report("HOSTS_TARGET=loopback: only case 1 runs (the others need the stand's hosts and links)");
});
