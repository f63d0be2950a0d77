import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { PendingPurge, PurgeOutbox } from '../../catalog/catalog.ts';
import type { PurgeMetrics } from './purge-metrics.ts';
import type { PurgeSender } from './send-purge.ts';

export type CachePurgerDeps = {
  outbox: PurgeOutbox;
  /** CACHE_PURGE_URLS; none: every purge is settled at once, with nothing to send. */
  urls: readonly string[];
  send: PurgeSender;
  /** Epoch ms, from the process's clock: when purges fall due, leases, retries. */
  now: () => number;
  logger: Logger;
  metrics: PurgeMetrics;
  /**
   * How long a purge waits after this process first saw it, so that every process serving the catalogue
   * has noticed the change (each checks every CATALOG_REFRESH_INTERVAL_MS) before caches fetch it again.
   */
  settleMs: number;
  /** How often to look for purges. */
  pollIntervalMs: number;
  /** Names this process in leases; processes share the outbox. */
  instanceId?: string;
  /** How long a claimed purge stays with this process: longer than sending it can take. */
  leaseMs?: number;
  /** Failed attempts before a purge is given up. */
  maxAttempts?: number;
};

/**
 * 1, 2, 4... s, at most 5 minutes: 20 attempts last about an hour, after which every cached copy from before
 * the change has expired anyway (the longest lifetime of a catalogue response is an hour, /categories').
 */
export const purgeRetryDelayMs = (failedAttempts: number): number =>
  Math.min(1000 * 2 ** (failedAttempts - 1), 300_000);

const defaultMaxAttempts = 20;

/**
 * When a purge goes out, for a service whose catalogue checks for imports every `refreshIntervalMs`: once
 * every process has had the time to notice the change (plus half a second for its check to complete).
 */
export const purgeTimings = (refreshIntervalMs: number) => ({
  settleMs: refreshIntervalMs + 500,
  pollIntervalMs: Math.max(refreshIntervalMs, 100),
});
const keepSettledMs = 7 * 86_400_000;
const pruneEveryMs = 3_600_000;

/** What a log line may say of a cache URL: no credentials, no query (a CDN adapter's token). */
const shownUrl = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
};

/**
 * Sends the purges an import recorded to every cache of CACHE_PURGE_URLS, once in total however many
 * processes run one: each purge is claimed by one process, sent, and settled; a cache that fails gets it
 * again later (exponential backoff, from the store: across restarts too), the others not.
 */
export const startCachePurger = ({
  outbox,
  urls,
  send,
  now,
  logger,
  metrics,
  settleMs,
  pollIntervalMs,
  instanceId = randomUUID(),
  leaseMs = 60_000,
  maxAttempts = defaultMaxAttempts,
}: CachePurgerDeps) => {
  const firstSeen = new Map<string, number>();
  let lastPrune = -Infinity;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const stopping = new AbortController();
  let running: Promise<void> = Promise.resolve();

  const attempt = async (purge: PendingPurge) => {
    const at = now();
    if (!(await outbox.claim(purge.id, { owner: instanceId, now: at, leaseUntil: at + leaseMs }))) return;
    const targets = urls.filter((url) => !purge.sentTo.includes(url));
    const results = await Promise.all(
      targets.map(async (url) => ({ url, error: await send(url, purge.keys, stopping.signal) })),
    );
    // Stopped midway: the lease runs out and the purge goes again (a cache that took it takes it twice).
    if (stopped) return;
    const failures = results.filter((result) => result.error !== null);
    const sentTo = [...purge.sentTo, ...results.filter((result) => result.error === null).map((r) => r.url)];
    metrics.counted('sent', sentTo.length - purge.sentTo.length);
    const context = { purgeId: purge.id, keys: purge.keys.length, firstKeys: purge.keys.slice(0, 10) };

    if (failures.length === 0) {
      if (targets.length > 0)
        logger.info(
          { ...context, caches: targets.map(shownUrl) },
          'purged changed catalogue responses from caches',
        );
      await outbox.settle(purge.id, instanceId, { status: 'sent', at: now() });
      return;
    }
    const failed = failures.map(({ url, error }) => ({ cache: shownUrl(url), error }));
    const attempts = purge.attempts + 1;
    if (attempts >= maxAttempts) {
      metrics.counted('abandoned', failures.length);
      logger.error(
        { ...context, failed, attempts },
        'gave up purging changed catalogue responses from caches',
      );
      await outbox.settle(purge.id, instanceId, { status: 'abandoned', at: now(), sentTo });
      return;
    }
    metrics.counted('failed', failures.length);
    const retryInMs = purgeRetryDelayMs(attempts);
    logger.warn({ ...context, failed, attempts, retryInMs }, 'could not purge caches; retrying later');
    await outbox.settle(purge.id, instanceId, { status: 'retry', dueAt: now() + retryInMs, sentTo });
  };

  const runOnce = async () => {
    const due = await outbox.due({ now: now(), limit: 20 });
    const seenAt = performance.now();
    const dueIds = new Set(due.map((purge) => purge.id));
    for (const id of firstSeen.keys()) if (!dueIds.has(id)) firstSeen.delete(id);
    for (const purge of due) {
      if (stopped) return;
      const first = firstSeen.get(purge.id) ?? seenAt;
      firstSeen.set(purge.id, first);
      if (seenAt - first >= settleMs) await attempt(purge);
    }
    if (now() - lastPrune >= pruneEveryMs) {
      lastPrune = now();
      await outbox.prune(lastPrune - keepSettledMs);
    }
  };

  const tick = () => {
    running = runOnce()
      .catch((error: unknown) => {
        // The store failed: the purges stay pending, and the next round tries again.
        logger.error({ err: error }, 'could not send the pending cache purges');
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, pollIntervalMs).unref();
      });
  };
  tick();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      stopping.abort();
      await running;
    },
  };
};
