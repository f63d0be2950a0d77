import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addUserWithCli,
  pollUntil,
  runEmbeddedToExit,
  signIn,
  startEmbeddedChild,
  type EmbeddedChild,
  type SignedIn,
} from '../support/embedded-child.ts';
import { problemOf } from '../support/http.ts';
import type { OrderBody } from '../support/orders.ts';
import { runAdmin } from '../support/run-admin.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { tokenOf } from '../support/consistency-tokens.ts';
import { loadTestWriteLimits } from '../support/load-limits.ts';

// The embedded default on real file systems that are read-only or full, at start and mid-run: tmpfs mounts
// of a few megabytes, and an ext4 image on a loop device that the kernel turns read-only under the running
// process, as it does after a disk error. Needs root (mount); skipped with the reason otherwise, except
// when CI is set, where it fails instead. Prints what it did and checked.

const report = (text: string) => process.stdout.write(`  [faults] ${text}\n`);
const base = mkdtempSync(join(tmpdir(), 'faults-disk-'));
const mounts: string[] = [];
const children: EmbeddedChild[] = [];

const run = (command: string, args: string[]) =>
  execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const messageOf = (error: unknown) =>
  ((error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message).split('\n')[0];

const mountTmpfs = (name: string, sizeKb: number, { readOnly = false } = {}) => {
  const dir = join(base, name);
  mkdirSync(dir, { recursive: true });
  run('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k${readOnly ? ',ro' : ''}`, 'tmpfs', dir]);
  mounts.push(dir);
  return dir;
};
const unmount = (dir: string) => {
  run('umount', [dir]);
  mounts.splice(mounts.indexOf(dir), 1);
};

/** An ext4 file system in an image file, on a loop device; errors=remount-ro, as servers mount disks. */
const mountExt4 = (name: string, sizeMb: number) => {
  const image = join(base, `${name}.img`);
  const dir = join(base, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(image, '');
  run('truncate', ['-s', `${sizeMb}M`, image]);
  run('mkfs.ext4', ['-q', '-F', image]);
  const mount = () => {
    run('mount', ['-o', 'loop,errors=remount-ro', image, dir]);
    mounts.push(dir);
  };
  mount();
  const device = () => basename(run('findmnt', ['-n', '-o', 'SOURCE', dir]).trim());
  return { image, dir, device, mount };
};

/** Why this process cannot mount file systems, or undefined when it can. */
const mountProblem = ((): string | undefined => {
  if (process.platform !== 'linux') return `mounting needs Linux, not ${process.platform}`;
  if (process.getuid?.() !== 0) return 'mounting file systems needs root';
  try {
    unmount(mountTmpfs('probe', 64));
    return undefined;
  } catch (error) {
    return `mount -t tmpfs failed: ${messageOf(error)}`;
  }
})();

/** Why the kernel cannot be made to turn an ext4 file system read-only here, or undefined when it can. */
const ext4Problem = ((): string | undefined => {
  if (mountProblem) return mountProblem;
  try {
    const probe = mountExt4('ext4-probe', 8);
    const trigger = `/sys/fs/ext4/${probe.device()}/trigger_fs_error`;
    const present = existsSync(trigger);
    unmount(probe.dir);
    rmSync(probe.image);
    return present ? undefined : `${trigger} is missing`;
  } catch (error) {
    return `an ext4 image on a loop device: ${messageOf(error)}`;
  }
})();

const required = Boolean(process.env['CI']);
if (mountProblem && !required) report(`skipped the disk tests: ${mountProblem}`);
else if (ext4Problem && !required) report(`skipped the mid-run read-only test: ${ext4Problem}`);

afterAll(async () => {
  for (const child of children) await child.kill('SIGKILL');
  for (const dir of [...mounts].reverse()) {
    try {
      unmount(dir);
    } catch (error) {
      report(`could not unmount ${dir}: ${messageOf(error)}; unmounting it lazily`);
      run('umount', ['-l', dir]);
    }
  }
  rmSync(base, { recursive: true, force: true });
});

/** Writes a filler file until the file system says ENOSPC: its path and size. */
const fill = (dir: string) => {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'a');
  let bytes = 0;
  for (const size of [1 << 20, 4096, 1]) {
    const chunk = Buffer.alloc(size, 1);
    try {
      for (;;) bytes += writeSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    }
  }
  closeSync(fd);
  return { path, bytes };
};
const megabytes = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

const start = async (dataDir: string, env: Record<string, string> = {}) => {
  // Load shedding by event-loop delay is the overload tests' subject, not these (503 overloaded is allowed).
  const child = await startEmbeddedChild(dataDir, {
    ...loadTestWriteLimits,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    HTTP_MAX_EVENT_LOOP_DELAY_MS: '0',
    ...env,
  });
  children.push(child);
  return child;
};

/** Starts and stops the service once on `dataDir`, so that it holds a log, a read store and keys. */
const initialise = async (dataDir: string) => {
  const child = await start(dataDir);
  expect((await child.kill('SIGTERM')).code).toBe(0);
};

/** Runs the service on `dataDir` expecting it to refuse to start: one line on stderr naming the directory. */
const expectRefusedStart = async (dataDir: string, cause: RegExp) => {
  const result = await runEmbeddedToExit(dataDir);
  const lines = result.stderr.trim().split('\n');
  expect(result.code, result.stderr).toBe(73);
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toContain(`DATA_DIR ${dataDir} `);
  expect(lines[0]).toMatch(cause);
  expect(result.stdout).toBe('');
  return lines[0]!;
};

const integrityOf = (file: string) => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check;
  } finally {
    db.close();
  }
};

type Placement = {
  note: string;
  phase: string;
  /** performance.now() when the request was sent and when its answer came. */
  sentAt: number;
  answeredAt: number;
  /** overloaded: load shedding's 503, refused before any work, so not stored either. */
  outcome: 'acknowledged' | 'storage-unavailable' | 'overloaded';
  order?: OrderBody;
};

/**
 * Customers placing orders as fast as the service answers, until stopped. Each answer must be 201 or a 503
 * storage-unavailable problem with Retry-After (or load shedding's 503 overloaded, which refuses before any
 * work); anything else (a 500, a dropped connection) fails the test.
 */
const placeOrders = (url: () => string, customers: (SignedIn & { addressId: string })[], clients: number) => {
  const placements: Placement[] = [];
  const unexpected: string[] = [];
  let phase = 'before';
  let stopped = false;
  const loops = Array.from({ length: clients }, async (_, index) => {
    const customer = customers[index % customers.length]!;
    for (let n = 0; !stopped; n++) {
      const note = `client ${index}, order ${n}`;
      const sentIn = phase;
      const sentAt = performance.now();
      const response = await fetch(`${url()}/orders`, {
        method: 'POST',
        headers: { ...customer.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          items: [{ productId: '1001', quantity: 1 }],
          shippingAddressId: customer.addressId,
          note,
        }),
      }).catch((error: unknown) => {
        // The process must stay up: no answer at all (it exited) is a failure.
        unexpected.push(`no answer: ${String(error)}`);
        return undefined;
      });
      if (!response) return;
      const sent = { note, phase: sentIn, sentAt, answeredAt: performance.now() };
      if (response.status === 201) {
        placements.push({ ...sent, outcome: 'acknowledged', order: (await response.json()) as OrderBody });
        continue;
      }
      const retryAfter = response.headers.get('retry-after');
      const problem = await problemOf(response).catch((error: unknown) => ({ type: String(error) }));
      if (response.status === 503 && problem.type.endsWith('/storage-unavailable') && retryAfter) {
        placements.push({ ...sent, outcome: 'storage-unavailable' });
      } else if (response.status === 503 && problem.type.endsWith('/overloaded') && retryAfter) {
        placements.push({ ...sent, outcome: 'overloaded' });
      } else {
        unexpected.push(`${response.status} ${JSON.stringify(problem)}`);
        return;
      }
    }
  });
  const count = (outcome: Placement['outcome'], inPhase?: string) =>
    placements.filter((p) => p.outcome === outcome && (inPhase === undefined || p.phase === inPhase)).length;
  return {
    placements,
    unexpected,
    count,
    set phase(name: string) {
      phase = name;
    },
    /** Resolves once `done` holds of the placements so far (polled). */
    until: (what: string, done: () => boolean) =>
      pollUntil(what, () => {
        if (unexpected.length > 0) throw new Error(`unexpected answers: ${unexpected.join('; ')}`);
        return done() ? true : undefined;
      }),
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
};

/** An admin, a staff member and two customers with an address each, made with the CLI and signed in. */
/** An admin subscribes `receiverUrl` to order.created. */
const subscribeToOrdersCreated = async (url: string, admin: SignedIn, receiverUrl: string) => {
  const subscribed = await fetch(`${url}/webhooks`, {
    method: 'POST',
    headers: { ...admin.auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: receiverUrl, events: ['order.created'] }),
  });
  expect(subscribed.status).toBe(201);
};

const usersOf = async (dataDir: string) => {
  const [adminUser, staffUser, ...customerUsers] = await Promise.all([
    addUserWithCli(dataDir, ['admin']),
    addUserWithCli(dataDir, ['staff']),
    addUserWithCli(dataDir, ['customer']),
    addUserWithCli(dataDir, ['customer']),
  ]);
  return async (url: string) => {
    const customers: (SignedIn & { addressId: string })[] = [];
    for (const user of customerUsers) {
      const customer = await signIn(url, user);
      const response = await fetch(`${url}/users/me/addresses`, {
        method: 'POST',
        headers: { ...customer.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ street: '1 Main St', city: 'Lyon', postalCode: '69001', country: 'FR' }),
      });
      expect(response.status).toBe(201);
      customers.push({ ...customer, addressId: ((await response.json()) as { id: string }).id });
    }
    return { admin: await signIn(url, adminUser!), staff: await signIn(url, staffUser!), customers };
  };
};

/**
 * After a restart: both SQLite files pass PRAGMA integrity_check, every acknowledged order reads back as it
 * was answered, an order answered 503 is absent or whole, the read model equals a replay, and a new order is
 * taken.
 */
/**
 * While the disk takes no writes, the service stays alive and reads (an acknowledged order), and GET /ready
 * answers 503 with the data directory's check failing for `detail`.
 */
const checkReadingButNotReady = async (
  service: EmbeddedChild,
  staff: SignedIn,
  placements: Placement[],
  detail: string,
) => {
  const health = await fetch(`${service.url}/health`);
  expect(health.status).toBe(200);
  const anOrder = placements.find((p) => p.outcome === 'acknowledged')!.order!;
  const read = await fetch(`${service.url}/orders/${anOrder.id}`, { headers: staff.auth });
  expect(read.status).toBe(200);
  const ready = await fetch(`${service.url}/ready`);
  const readiness = (await ready.json()) as { checks: Record<string, { status: string; detail?: string }> };
  expect(ready.status).toBe(503);
  expect(readiness.checks['dataDir']).toEqual({ status: 'failing', detail });
  return { health, read, ready, readiness };
};

const checkAfterRestart = async (
  service: EmbeddedChild,
  dataDir: string,
  staff: SignedIn,
  customer: SignedIn & { addressId: string },
  placements: Placement[],
  /**
   * When a disk error was injected (performance.now() before and after), an acknowledged order whose request
   * was in flight meanwhile may be absent, whole: see the read-only mid-run case. Any other loss fails.
   */
  injection?: { from: number; to: number },
) => {
  const integrity = {
    events: integrityOf(join(dataDir, 'events.sqlite')),
    readStore: integrityOf(join(dataDir, 'read-store.sqlite')),
  };
  expect(integrity).toEqual({ events: 'ok', readStore: 'ok' });
  const placed = await fetch(`${service.url}/orders`, {
    method: 'POST',
    headers: { ...customer.auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      items: [{ productId: '1001', quantity: 1 }],
      shippingAddressId: customer.addressId,
      note: 'after the restart',
    }),
  });
  expect(placed.status).toBe(201);
  // The customer's write, read by staff: its position, as a token of staff's.
  const staffId = (
    (await (await fetch(`${service.url}/users/me`, { headers: staff.auth })).json()) as { id: string }
  ).id;
  const head = tokenOf({ dataDir }, { id: staffId }, placed.headers.get('consistency-token')!);
  const listed: OrderBody[] = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${service.url}/orders?page=${page}&perPage=100`, {
      headers: { ...staff.auth, 'Consistency-Token': head },
    });
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: OrderBody[] };
    listed.push(...data);
    if (data.length < 100) break;
  }
  // Read by staff, answered to its customer: compared without `actions`, which are each reader's own.
  const withoutActions = ({ actions: _actions, ...order }: OrderBody & { actions?: unknown }) => order;
  const byNote = new Map(listed.map((order) => [order.note, withoutActions(order)]));
  const acknowledged = placements.filter((p) => p.outcome === 'acknowledged');
  // Each acknowledged order must read back exactly as its 201 answered; a failure says which, in which phase
  // of the test, and whether it is absent or which fields differ.
  const missing = acknowledged.flatMap((p): { note: string; phase: string; problem: string }[] => {
    const found = byNote.get(p.note);
    const answered = (p.order ? withoutActions(p.order) : p.order) as unknown as Record<string, unknown>;
    if (JSON.stringify(found) === JSON.stringify(answered)) return [];
    if (!found) return [{ note: p.note, phase: p.phase, problem: 'absent' }];
    const read = found as unknown as Record<string, unknown>;
    const fields = Object.keys({ ...answered, ...read }).filter(
      (key) => JSON.stringify(answered[key]) !== JSON.stringify(read[key]),
    );
    return [{ note: p.note, phase: p.phase, problem: `differs in ${fields.join(', ')}` }];
  });
  const inFlightDuringInjection = (p: Placement) =>
    injection !== undefined && p.sentAt < injection.to && p.answeredAt > injection.from;
  const lostInAbort = missing.filter(
    (m) => m.problem === 'absent' && inFlightDuringInjection(acknowledged.find((p) => p.note === m.note)!),
  );
  expect(missing.filter((m) => !lostInAbort.includes(m))).toEqual([]);
  expect(new Set(listed.map((order) => order.note)).size).toBe(listed.length);
  // Load shedding refuses before any work: nothing of it is stored.
  const shedButStored = placements.filter((p) => p.outcome === 'overloaded' && byNote.has(p.note));
  expect(shedButStored.map((p) => p.note)).toEqual([]);
  // A 503 storage-unavailable is not an acknowledgement, like a lost answer: almost always nothing is stored,
  // but a write that failed only at its very end (its sync, or SQLite's WAL index after the commit frame)
  // may turn up after the restart, whole: then its history is exactly its OrderPlaced.
  const refused = placements.filter((p) => p.outcome === 'storage-unavailable');
  const refusedButStored = refused.filter((p) => byNote.has(p.note));
  for (const p of refusedButStored) {
    const history = await fetch(`${service.url}/orders/${byNote.get(p.note)!.id}/events`, {
      headers: staff.auth,
    });
    expect(((await history.json()) as { type: string }[]).map((event) => event.type)).toEqual([
      'OrderPlaced',
    ]);
  }
  expect(listed.length).toBe(acknowledged.length - lostInAbort.length + refusedButStored.length + 1);
  const verify = await runAdmin(['projections:verify'], { DATA_DIR: dataDir });
  expect(verify.stderr).toBe('');
  expect(verify.code).toBe(0);
  return {
    summary:
      `events.sqlite and read-store.sqlite pass PRAGMA integrity_check; ` +
      (injection === undefined
        ? `all ${acknowledged.length} acknowledged orders read back exactly as answered; `
        : `of the ${acknowledged.length} acknowledged orders, ${acknowledged.length - lostInAbort.length} read ` +
          `back exactly as answered and ${lostInAbort.length} are absent; ` +
          `${acknowledged.filter(inFlightDuringInjection).length} were acknowledged while the kernel was ` +
          `aborting its journal, the only ones allowed to be absent; `) +
      `of the ${refused.length} answered 503, ` +
      `${refused.length - refusedButStored.length} left nothing and ${refusedButStored.length} turned up whole ` +
      `(a write that failed only at its end: not acknowledged, like a lost answer); projections:verify finds ` +
      `the read model equal to a replay, and a new order is taken`,
  };
};

describe.skipIf(mountProblem !== undefined && !required)(
  'the embedded default on full and read-only disks',
  () => {
    beforeAll(() => {
      if (mountProblem) throw new Error(`CI is set, so these tests must run, but: ${mountProblem}`);
    });

    it('refuses to start on a read-only DATA_DIR, in one line naming it and the cause', async () => {
      const empty = mountTmpfs('read-only-empty', 1024, { readOnly: true });
      const fresh = await expectRefusedStart(join(empty, 'data'), /read-only \(EROFS\)/);
      report(`started on a read-only tmpfs (a DATA_DIR to create): exit 73, "${fresh}"`);

      const used = mountTmpfs('read-only-used', 16 * 1024);
      await initialise(used);
      run('mount', ['-o', 'remount,ro', used]);
      const existing = await expectRefusedStart(used, /read-only \(EROFS\)/);
      report(`started on a tmpfs holding data, remounted read-only: exit 73, "${existing}"`);
      report(
        'checked: each a single line on stderr naming DATA_DIR and the cause, no stack, nothing on stdout',
      );
    });

    it('refuses to start on a full DATA_DIR, in one line naming it and the cause, and starts once there is room', async () => {
      const empty = mountTmpfs('full-empty', 1024);
      fill(empty);
      const fresh = await expectRefusedStart(join(empty, 'data'), /full \(ENOSPC, 0 kB free\)/);
      report(`started on a full 1 MB tmpfs (a DATA_DIR to create): exit 73, "${fresh}"`);

      const used = mountTmpfs('full-used', 16 * 1024);
      await initialise(used);
      const filler = fill(used);
      const existing = await expectRefusedStart(used, /full \(ENOSPC, 0 kB free\)/);
      report(
        `started on a 16 MB tmpfs holding data, filled with ${megabytes(filler.bytes)}: exit 73, "${existing}"`,
      );
      rmSync(filler.path);
      const restarted = await start(used);
      expect((await restarted.kill('SIGTERM')).code).toBe(0);
      report(
        'checked: single lines naming DATA_DIR and the cause; with the filler removed it starts and stops (exit 0)',
      );
    });

    it('answers 503 storage-unavailable while the disk is full mid-run, stays up, and recovers', async () => {
      const dataDir = mountTmpfs('full-mid-run', 64 * 1024);
      const signInAll = await usersOf(dataDir);
      const receiver = await startWebhookReceiver();
      let service = await start(dataDir);
      try {
        const { admin, staff, customers } = await signInAll(service.url);
        await subscribeToOrdersCreated(service.url, admin, receiver.url);

        const load = placeOrders(() => service.url, customers, 8);
        await load.until('50 orders placed', () => load.count('acknowledged') >= 50);
        load.phase = 'full';
        const filler = fill(dataDir);
        await load.until(
          '20 answers 503 while the disk is full',
          () => load.count('storage-unavailable') >= 20,
        );
        const { health, read, ready, readiness } = await checkReadingButNotReady(
          service,
          staff,
          load.placements,
          'cannot be written: the disk is full (ENOSPC)',
        );
        rmSync(filler.path);
        load.phase = 'after';
        await load.until(
          '20 orders placed after the filler was removed',
          () => load.count('acknowledged', 'after') >= 20,
        );
        await load.stop();
        const readyAfter = await pollUntil('GET /ready 200 once the disk has room', async () => {
          const response = await fetch(`${service.url}/ready`);
          await response.body?.cancel();
          return response.status === 200 ? response.status : undefined;
        });
        report(
          `64 MB tmpfs; 8 clients placing orders; after ${load.count('acknowledged', 'before')} were placed, a filler ` +
            `of ${megabytes(filler.bytes)} filled the disk: ${load.count('storage-unavailable')} answers were 503 ` +
            `storage-unavailable problems with Retry-After, ${load.count('acknowledged', 'full')} were still 201; ` +
            `meanwhile GET /health answered ${health.status}, GET /orders/{id} ${read.status}, GET /ready ` +
            `${ready.status} (dataDir: ${readiness.checks['dataDir']?.detail}); after the filler was removed, ` +
            `${load.count('acknowledged', 'after')} more were 201 and GET /ready ${readyAfter}`,
        );
        // Each refusal is logged for the operator (log lines arrive through a pipe: polled).
        const storageErrors = await pollUntil('a log line per refused request', () => {
          const logged = service.logged('request failed: storage unavailable');
          return logged === load.count('storage-unavailable') ? logged : undefined;
        });
        const projectionRetries = service.logged('projection failed; retrying');
        const dispatcherRetries = service.logged('could not read the webhook retry state; trying again');

        // The projections, the relay and the dispatcher retried through it: every order reaches the subscriber.
        const acknowledgedIds = new Set(
          load.placements.filter((p) => p.outcome === 'acknowledged').map((p) => p.order!.id),
        );
        const deliveredIds = () =>
          new Set(receiver.received.map((request) => String(request.json.data['id'])));
        await receiver
          .waitFor(() => [...acknowledgedIds].every((id) => deliveredIds().has(id)), 90_000)
          .catch(() => undefined);
        expect([...acknowledgedIds].filter((id) => !deliveredIds().has(id))).toEqual([]);
        report(
          `checked: the service logged ${storageErrors} refused requests, ${projectionRetries} projection or relay ` +
            `retries and ${dispatcherRetries} dispatcher retries, and did not exit; the subscriber received ` +
            `order.created for all ${acknowledgedIds.size} acknowledged orders`,
        );

        expect((await service.kill('SIGTERM')).code).toBe(0);
        service = await start(dataDir);
        const { summary } = await checkAfterRestart(service, dataDir, staff, customers[0]!, load.placements);
        report(`stopped (exit 0) and restarted: ${summary}`);
      } finally {
        await service.kill('SIGTERM');
        await receiver.stop();
      }
    });

    it("takes orders while the read store's disk is full, and its projections, relay and dispatcher catch up", async () => {
      // The read store on a disk of its own (read-store.sqlite a symbolic link: SQLite keeps the WAL beside the
      // link's target), so that only the projections, the relay and the webhook dispatcher meet the full disk.
      const readStoreDisk = mountTmpfs('read-store-full', 16 * 1024);
      const dataDir = mkdtempSync(join(base, 'read-store-full-data-'));
      symlinkSync(join(readStoreDisk, 'read-store.sqlite'), join(dataDir, 'read-store.sqlite'));
      const signInAll = await usersOf(dataDir);
      const receiver = await startWebhookReceiver();
      let service = await start(dataDir);
      try {
        const { admin, staff, customers } = await signInAll(service.url);
        await subscribeToOrdersCreated(service.url, admin, receiver.url);

        const load = placeOrders(() => service.url, customers, 8);
        await load.until('50 orders placed', () => load.count('acknowledged') >= 50);
        load.phase = 'full';
        const filler = fill(readStoreDisk);
        const retries = (name: string) => service.logged(`projection failed; retrying (${name})`);
        await pollUntil('the orders projection failing on the full disk', () =>
          retries('orders') > 0 ? true : undefined,
        );
        await load.until(
          '50 more orders placed with the read store full',
          () => load.count('acknowledged', 'full') >= 50,
        );
        // The last order placed is in the log, not yet in the read model.
        const latest = load.placements.findLast((p) => p.outcome === 'acknowledged')!.order!;
        const unread = await fetch(`${service.url}/orders/${latest.id}`, { headers: staff.auth });
        await unread.body?.cancel();
        rmSync(filler.path);
        load.phase = 'after';
        await load.until(
          '20 orders placed after the filler was removed',
          () => load.count('acknowledged', 'after') >= 20,
        );
        await load.stop();
        expect(load.count('storage-unavailable')).toBe(0);
        report(
          `read-store.sqlite on a 16 MB tmpfs of its own, the log beside DATA_DIR; 8 clients placing orders; after ` +
            `${load.count('acknowledged', 'before')} orders a filler of ${megabytes(filler.bytes)} filled the read ` +
            `store's disk: ${load.count('acknowledged', 'full')} more orders were placed (all 201), the newest read ` +
            `${unread.status} meanwhile; after the filler was removed, ${load.count('acknowledged', 'after')} more`,
        );

        const acknowledged = load.placements.filter((p) => p.outcome === 'acknowledged');
        const lastToken = acknowledged.at(-1)!;
        const caughtUp = await fetch(`${service.url}/orders/${lastToken.order!.id}`, { headers: staff.auth });
        await caughtUp.body?.cancel();
        const ids = new Set(acknowledged.map((p) => p.order!.id));
        const deliveredIds = () =>
          new Set(receiver.received.map((request) => String(request.json.data['id'])));
        await receiver
          .waitFor(() => [...ids].every((id) => deliveredIds().has(id)), 90_000)
          .catch(() => undefined);
        expect([...ids].filter((id) => !deliveredIds().has(id))).toEqual([]);
        const dispatcherRetries = service.logged('could not read the webhook retry state; trying again');
        report(
          `checked: failures logged and retried: orders projection ${retries('orders')}, subscriptions ` +
            `projection ${retries('webhook-subscriptions')}, relay ${retries('event-relay')}, dispatcher worker ` +
            `${dispatcherRetries}; the process did not exit; the subscriber received order.created for all ` +
            `${ids.size} acknowledged orders`,
        );

        expect((await service.kill('SIGTERM')).code).toBe(0);
        service = await start(dataDir);
        const { summary } = await checkAfterRestart(service, dataDir, staff, customers[0]!, load.placements);
        report(`stopped (exit 0) and restarted: ${summary}`);
      } finally {
        await service.kill('SIGTERM');
        await receiver.stop();
      }
    });

    it.skipIf(ext4Problem !== undefined && !required)(
      'answers 503 storage-unavailable when the kernel turns the disk read-only mid-run, and loses nothing acknowledged before or after the error',
      async () => {
        if (ext4Problem) throw new Error(`CI is set, so this test must run, but: ${ext4Problem}`);
        // A mounted file system cannot be remounted read-only while a process holds files open for writing
        // (mount says EBUSY), and the service holds its SQLite files so. A disk goes read-only under a running
        // process when the kernel meets a disk error on an errors=remount-ro mount: trigger_fs_error makes one.
        // That also drops what the kernel had not written yet, like a power cut: so power-loss durability.
        // Every order acknowledged before the error, or sent after it, must survive. One acknowledged while the
        // kernel was aborting its journal may not, though its fdatasync returned 0: jbd2_complete_transaction
        // answers success for a transaction the aborted journal has already dropped (a stale tid "is by
        // definition already completed"), so the commit that held the log's new size never reaches the disk.
        // Under a CPU burner, 3 runs in 20 lost such orders (2, 4 or 8, each a whole group commit: the log ends
        // before it, nothing torn). The check below tolerates exactly those and fails on any other loss.
        const disk = mountExt4('read-only-mid-run', 64);
        const dataDir = join(disk.dir, 'data');
        const signInAll = await usersOf(dataDir);
        const env = { EVENT_LOG_DURABILITY: 'power-loss' };
        let service = await start(dataDir, env);
        try {
          const { staff, customers } = await signInAll(service.url);
          // What was set up before the load is on the disk, as on a machine that has run for a while.
          run('sync', ['-f', dataDir]);
          const load = placeOrders(() => service.url, customers, 8);
          await load.until('50 orders placed', () => load.count('acknowledged') >= 50);
          load.phase = 'read-only';
          // Written off the event loop, so that answers arriving meanwhile are timed as they come.
          const injection = { from: performance.now(), to: 0 };
          await writeFile(`/sys/fs/ext4/${disk.device()}/trigger_fs_error`, '1');
          injection.to = performance.now();
          expect(() => writeFileSync(join(disk.dir, 'probe'), 'x')).toThrow(/EROFS/);
          await load.until(
            '20 answers 503 on the read-only disk',
            () => load.count('storage-unavailable') >= 20,
          );
          const { health, read, ready, readiness } = await checkReadingButNotReady(
            service,
            staff,
            load.placements,
            'cannot be written: the file system is read-only (EROFS)',
          );
          await load.stop();
          const mountOptions = readFileSync('/proc/mounts', 'utf8')
            .split('\n')
            .find((line) => line.split(' ')[1] === disk.dir)
            ?.split(' ')[3];
          report(
            `64 MB ext4 on ${disk.device()} (errors=remount-ro), EVENT_LOG_DURABILITY=power-loss; 8 clients placing ` +
              `orders; after ${load.count('acknowledged', 'before')} were placed, an ext4 error turned the disk ` +
              `read-only (${mountOptions}): ${load.count('storage-unavailable')} answers were 503 ` +
              `storage-unavailable problems with Retry-After, ${load.count('acknowledged', 'read-only')} were still ` +
              `201; GET /health answered ${health.status}, GET /orders/{id} ${read.status} and GET /ready ` +
              `${ready.status} (dataDir: ${readiness.checks['dataDir']?.detail}) meanwhile`,
          );
          await pollUntil('a log line per refused request', () =>
            service.logged('request failed: storage unavailable') === load.count('storage-unavailable')
              ? true
              : undefined,
          );

          // The way back is an operator's: stop, unmount, fsck, mount, start.
          const stopped = await service.kill('SIGTERM');
          unmount(disk.dir);
          let fsck: string;
          try {
            fsck = `e2fsck exit 0: ${run('e2fsck', ['-f', '-y', disk.image]).trim().split('\n').at(-1)}`;
          } catch (error) {
            const { status, stdout } = error as { status: number; stdout: Buffer };
            // 1: errors were corrected. Anything above is a file system e2fsck could not repair.
            expect(status).toBe(1);
            fsck = `e2fsck exit 1 (corrected): ${stdout.toString().trim().split('\n').at(-1)}`;
          }
          disk.mount();
          service = await start(dataDir, env);
          const { summary } = await checkAfterRestart(
            service,
            dataDir,
            staff,
            customers[0]!,
            load.placements,
            injection,
          );
          report(
            `stopped it (SIGTERM: exit ${stopped.code}), unmounted, ${fsck}, mounted again and restarted: ${summary}`,
          );
        } finally {
          await service.kill('SIGTERM');
        }
      },
    );
  },
);
