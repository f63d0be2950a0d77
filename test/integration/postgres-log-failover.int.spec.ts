import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLogUnavailableError, type EventStore } from '../../infrastructure/event-store/event-store.ts';
import { createPostgresEventStore } from '../../infrastructure/event-store/postgres/postgres-event-store.ts';
import { pollUntil } from '../support/embedded-child.ts';
import { anEvent, uniqueStreamId } from '../support/events.ts';
import { createPostgresLogDatabase } from '../support/postgres-log.ts';
import { startStandbyOf } from '../support/postgres-standby.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

// EVENT_LOG_URL naming two hosts with target_session_attrs=read-write, as docs/distributed.md asks of a
// deployment that fails over: the client must pick the primary whatever the order of the hosts, and follow
// a promotion by itself. The standby is a base backup of the test cluster of scripts/services.sh.

/** The log database's URL with other hosts: postgres://user@h1:p1,h2:p2/database?query. */
const withHosts = (url: string, ports: number[], query: string) => {
  const parsed = new URL(url);
  return `postgres://${parsed.username}@${ports.map((port) => `127.0.0.1:${port}`).join(',')}${parsed.pathname}?${query}`;
};

describe('PostgreSQL event log across a failover (two hosts, target_session_attrs=read-write)', () => {
  let database: Awaited<ReturnType<typeof createPostgresLogDatabase>>;
  let standby: Awaited<ReturnType<typeof startStandbyOf>>;
  let primary: Awaited<ReturnType<typeof startTcpProxy>>;
  const stores: EventStore[] = [];
  const open = async (url: string) => {
    const store = await createPostgresEventStore({ url, poolSize: 2, statementTimeoutMs: 5000 });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    database = await createPostgresLogDatabase();
    // The log's schema first, so that the standby has it.
    await (await open(database.url)).close();
    stores.length = 0;
    standby = await startStandbyOf(database.url);
    const { hostname, port } = new URL(database.url);
    // The primary as this test's clients reach it: cutting the proxy is the primary dying, for them.
    primary = await startTcpProxy({ host: hostname, port: Number(port) });
  }, 60_000);
  afterAll(async () => {
    for (const store of stores) await store.close().catch(() => undefined);
    await primary?.cut();
    await standby?.stop();
    await database?.drop();
  });

  it('appends on the primary when the standby is named first', async () => {
    const store = await open(
      withHosts(
        database.url,
        [standby.port, primary.port],
        'target_session_attrs=read-write&connect_timeout=2',
      ),
    );
    const stream = uniqueStreamId('standby-first');
    await store.appendToStream(stream, [anEvent('Appended')], { expectedRevision: 'no-stream' });
    expect((await store.readStream(stream)).map((event) => event.type)).toEqual(['Appended']);
  });

  it('follows the promotion of the standby by itself: unavailable meanwhile, then every acknowledged event kept', async () => {
    const store = await open(
      withHosts(
        database.url,
        [primary.port, standby.port],
        'target_session_attrs=read-write&connect_timeout=2',
      ),
    );
    const stream = uniqueStreamId('failover');
    await store.appendToStream(stream, [anEvent('BeforeFailover')], { expectedRevision: 'no-stream' });
    await pollUntil(
      'the standby to replay the append',
      () => standby.has(new URL(database.url).pathname.slice(1), stream, 1),
      {
        timeoutMs: 10_000,
        intervalMs: 50,
      },
    );

    await primary.cut();
    // The primary is gone and the other host is a standby: refused as unavailable (a 503), not appended there.
    await expect(
      store.appendToStream(stream, [anEvent('DuringFailover')], { expectedRevision: 0 }),
    ).rejects.toBeInstanceOf(EventLogUnavailableError);

    await standby.promote();
    const promotedAt = performance.now();
    await pollUntil(
      'an append on the promoted standby',
      async () => {
        try {
          await store.appendToStream(stream, [anEvent('AfterFailover')], { expectedRevision: 0 });
          return true;
        } catch (error) {
          if (error instanceof EventLogUnavailableError) return false;
          throw error;
        }
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    process.stdout.write(
      `  [failover] appends resumed ${Math.round(performance.now() - promotedAt)} ms after the promotion\n`,
    );
    expect((await store.readStream(stream)).map((event) => event.type)).toEqual([
      'BeforeFailover',
      'AfterFailover',
    ]);
  }, 60_000);
});
