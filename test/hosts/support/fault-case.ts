import { runAdmin } from '../../support/run-admin.ts';
import { carefulClient, type Exchange } from './careful-client.ts';
import type { FaultTarget } from './fault-target.ts';
import { probeWrite } from './heal-probe.ts';
import { startLoad } from './load.ts';
import { checkLog, readLoadEvents } from './log-check.ts';
import { readBack, type ReadBackMismatch } from './read-back.ts';
import type { ReceiverClient } from './receiver-client.ts';
import type { Shop } from './shop.ts';
import { checkWebhooks, type Subscriber, type WebhookVerdict } from './webhook-check.ts';

/** One fault, injected under load and ended before the checks. */
export type FaultCase = {
  name: string;
  /** What is done, in a few words, for the figures. */
  fault: string;
  /** How long the fault lasts between `begin` and `end`. */
  holdMs: number;
  /** From the fault's end until a new write is readable and delivered. */
  healGoalMs: number;
  /**
   * 'begin' for a fault the target heals by itself (a failover): its time to heal counts from the fault's
   * start (the primary's death), not from when the fault command returned.
   */
  healFrom?: 'begin' | 'end';
  /** Load after the heal, before the checks (default loadSettings.afterHealMs). */
  afterHealMs?: number;
  begin(fault: FaultTarget['fault']): Promise<void>;
  end(fault: FaultTarget['fault']): Promise<void>;
};

/** The load's shape and the client's patience: the same in every case, printed with the figures. */
export const loadSettings = {
  customers: 6,
  staff: 2,
  placePauseMs: 1000,
  stepPauseMs: 150,
  cancelEvery: 5,
  maxWaiting: 20,
  clientTimeoutMs: 10_000,
  giveUpAfterMs: 60_000,
  warmUpMs: 4000,
  afterHealMs: 2000,
  /** A webhook first received later than this after its write was acknowledged is late. */
  lateAfterMs: 15_000,
  /** How long the checker waits for every owed webhook after the load stopped. */
  webhookWaitMs: 120_000,
};

/** The answers the load got, by class: which of them the checker forbids. */
export type Answers = {
  requests: number;
  perSecond: number;
  byStatus: Record<string, number>;
  /** 5xx other than a 503 with Retry-After. */
  serverErrors: number;
  unavailableWithoutRetryAfter: number;
  /** No answer within the client's timeout. */
  hangs: number;
  /** The router did not even take the connection. */
  connectionFailures: number;
  /** The forbidden ones, by operation and outcome ("confirm 500"): where to look. */
  forbidden: Record<string, number>;
  /** The X-Request-Id of each 5xx other than a 503: what to look for in the processes' logs. */
  serverErrorRequestIds: string[];
  /** Every answer but a 2xx, by operation and outcome ("read own order 503"). */
  notOk: Record<string, number>;
};

export const classifyAnswers = (exchanges: readonly Exchange[], seconds: number): Answers => {
  const answers: Answers = {
    requests: exchanges.length,
    perSecond: exchanges.length / seconds,
    byStatus: {},
    serverErrors: 0,
    unavailableWithoutRetryAfter: 0,
    hangs: 0,
    connectionFailures: 0,
    forbidden: {},
    serverErrorRequestIds: [],
    notOk: {},
  };
  const count = (record: Record<string, number>, key: string) => (record[key] = (record[key] ?? 0) + 1);
  for (const { operation, outcome, retryAfter, requestId } of exchanges) {
    const key = typeof outcome === 'number' ? String(outcome) : outcome;
    count(answers.byStatus, key);
    if (!key.startsWith('2')) count(answers.notOk, `${operation} ${key}`);
    const forbidden: keyof Answers | null =
      outcome === 'timeout'
        ? 'hangs'
        : outcome === 'connection-failed'
          ? 'connectionFailures'
          : outcome === 503
            ? retryAfter === null
              ? 'unavailableWithoutRetryAfter'
              : null
            : outcome >= 500
              ? 'serverErrors'
              : null;
    if (forbidden === null) continue;
    answers[forbidden]++;
    if (forbidden === 'serverErrors' && requestId !== null) answers.serverErrorRequestIds.push(requestId);
    count(answers.forbidden, `${operation} ${key}`);
  }
  return answers;
};

export type CaseFigures = {
  name: string;
  fault: string;
  holdMs: number;
  answers: Answers;
  orders: number;
  acknowledged: number;
  lost: number;
  duplicated: number;
  outOfOrder: number;
  webhooks: WebhookVerdict;
  /** null: no new write was readable and delivered within the probe's time. */
  healMs: number | null;
  /**
   * From the fault's end until the last webhook owed for a write acknowledged before it was received (0: all
   * were before the end).
   */
  backlogMs: number | null;
  healGoalMs: number;
  readModelsEqualLog: boolean;
  verifyReport: string;
  readBackMismatches: ReadBackMismatch[];
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Everything that makes a case fail, in words (empty: it passed). */
export const violationsOf = (figures: CaseFigures): string[] => {
  const { answers, webhooks } = figures;
  const checks: [number | boolean, string][] = [
    [figures.lost, 'acknowledged writes lost'],
    [figures.duplicated, 'acknowledged writes duplicated'],
    [figures.outOfOrder, 'acknowledged writes out of order'],
    [webhooks.missing.length, 'owed webhooks never delivered'],
    [webhooks.outOfOrder, 'webhooks delivered out of order within an order'],
    [webhooks.badSignatures, 'webhooks with a bad signature'],
    [webhooks.differingDuplicates, 'webhooks received again with other bytes'],
    [answers.serverErrors, 'answers 5xx other than 503'],
    [answers.unavailableWithoutRetryAfter, 'answers 503 without Retry-After'],
    [answers.hangs, 'requests hung past the client timeout'],
    [answers.connectionFailures, 'connections the router refused or dropped'],
    [!figures.readModelsEqualLog, 'read models differ from a fold of the log'],
    [figures.readBackMismatches.length, 'orders read back without an acknowledged change'],
    [figures.healMs === null, 'never healed'],
    [
      figures.healMs !== null && figures.healMs > figures.healGoalMs,
      `healed after the ${figures.healGoalMs} ms goal`,
    ],
  ];
  return checks
    .filter(([found]) => found !== 0 && found !== false)
    .map(([found, what]) => (typeof found === 'number' ? `${found} ${what}` : what));
};

/**
 * One case: the load for a warm-up, the fault for `holdMs`, its end, the time until a new write is readable
 * and delivered, a little more load; then the load stopped and every check run on what it acknowledged.
 */
export const runCase = async (
  {
    target,
    shop,
    receiver,
    subscribers,
    report,
  }: {
    target: FaultTarget;
    shop: Shop;
    receiver: ReceiverClient;
    subscribers: readonly Subscriber[];
    report: (line: string) => void;
  },
  faultCase: FaultCase,
): Promise<CaseFigures> => {
  const settings = loadSettings;
  const people = await shop.people(settings);
  const exchanges: Exchange[] = [];
  const clientOf = (record: (exchange: Exchange) => void) =>
    carefulClient({
      baseUrl: target.baseUrl,
      timeoutMs: settings.clientTimeoutMs,
      giveUpAfterMs: settings.giveUpAfterMs,
      record,
    });
  const client = clientOf((exchange) => exchanges.push(exchange));
  const probe = { client, customer: people.prober, receiver, subscribers };

  const loadStarted = performance.now();
  const load = startLoad({ ...settings, client, customers: people.customers, staff: people.staff });
  let healMs: number | null = null;
  let ended = false;
  let endedAt!: number;
  try {
    await sleep(settings.warmUpMs);
    const faultBegan = performance.now();
    await faultCase.begin(target.fault);
    report(`${faultCase.name}: ${faultCase.fault} (${load.orders.length} orders placed so far)`);
    await sleep(faultCase.holdMs);
    await faultCase.end(target.fault);
    ended = true;
    endedAt = Date.now();
    const healingFrom = faultCase.healFrom === 'begin' ? faultBegan : performance.now();
    try {
      await probeWrite(probe, Math.max(faultCase.healGoalMs * 4, 60_000));
      healMs = performance.now() - healingFrom;
      report(
        `${faultCase.name}: healed ${Math.round(healMs)} ms after the fault's ${faultCase.healFrom ?? 'end'}`,
      );
    } catch (error) {
      report(`${faultCase.name}: ${(error as Error).message}`);
    }
    await sleep(faultCase.afterHealMs ?? settings.afterHealMs);
  } finally {
    if (!ended) await faultCase.end(target.fault).catch(() => undefined);
  }
  const orders = await load.stop();
  const checkStarted = performance.now();
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const answers = classifyAnswers(exchanges, loadSeconds);

  // The checks, on a healed target: first a write readable and delivered after the load's last.
  const checking = clientOf(() => undefined);
  await probeWrite({ ...probe, client: checking }, 120_000);
  const log = checkLog(orders, await readLoadEvents(target.eventLogUrl, orders));
  const webhookCheck = { ...settings, backlogOf: endedAt };
  let webhooks = checkWebhooks(orders, log.eventOf, await receiver.all(), subscribers, webhookCheck);
  const waitUntil = performance.now() + settings.webhookWaitMs;
  while (webhooks.missing.length > 0 && performance.now() < waitUntil) {
    await sleep(1000);
    webhooks = checkWebhooks(orders, log.eventOf, await receiver.all(), subscribers, webhookCheck);
  }
  const verify = await runAdmin(['projections:verify'], target.adminEnv);
  const readBackMismatches = await readBack(checking, people.staff[0]!, orders);
  report(`${faultCase.name}: checked in ${((performance.now() - checkStarted) / 1000).toFixed(1)} s`);

  return {
    name: faultCase.name,
    fault: faultCase.fault,
    holdMs: faultCase.holdMs,
    answers,
    orders: orders.length,
    acknowledged: log.acknowledged,
    lost: log.lost.length,
    duplicated: log.duplicated.length,
    outOfOrder: log.outOfOrder.length,
    webhooks,
    healMs,
    backlogMs:
      webhooks.backlogDeliveredAt === null ? null : Math.max(0, webhooks.backlogDeliveredAt - endedAt),
    healGoalMs: faultCase.healGoalMs,
    readModelsEqualLog: verify.code === 0,
    verifyReport: `${verify.stdout.trim()} ${verify.stderr.trim()}`.trim(),
    readBackMismatches,
  };
};
