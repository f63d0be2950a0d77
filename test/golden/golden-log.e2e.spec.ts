import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, startEmbeddedChild, type EmbeddedChild, type SignedIn } from '../support/embedded-child.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { runAdmin } from '../support/run-admin.ts';
import {
  copyOfFixture,
  expectRecordedAnswer,
  fixture,
  goldenCredentials,
  goldenOrderIds,
  goldenUsers,
  recordedAnswers,
  shippedOrderIds,
  type Answer,
  type GoldenUser,
  type RecordedAnswer,
} from './recorded-answers.ts';
import { consistencyTokenFor } from '../support/consistency-tokens.ts';

// The log and the read store the release before versioned events wrote (commit 135fbde), with the answers
// it gave (test/fixtures/golden-2026-11-25/README.md). This release must read that log as it was written
// and answer as that release did, but for two changes made on purpose: an order shipped gains `shipment`
// (nulls, and when it left: its OrderShipped is version 1), and an event resource gains `version` (1).

let dataDir: string;
beforeAll(() => {
  dataDir = copyOfFixture();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const admin = (...args: string[]) => runAdmin(args, { DATA_DIR: dataDir });

/**
 * An export shows a webhook URL as its origin (a path or a query may be a credential): checked, then the
 * recorded whole URL put back, so that the rest compares byte for byte.
 */
const withRecordedUrl = (record: Record<string, unknown>, recorded: Record<string, unknown>) => {
  const data = record['data'] as Record<string, unknown>;
  const recordedData = recorded['data'] as Record<string, unknown>;
  if (record['type'] === 'WebhookSubscriptionRegistered') {
    expect(data['url']).toBe(new URL(recordedData['url'] as string).origin);
    return { ...record, data: { ...data, url: recordedData['url'] } };
  }
  const changes = data['changes'] as Record<string, unknown> | undefined;
  if (record['type'] === 'WebhookSubscriptionChanged' && changes?.['url'] !== undefined) {
    const whole = (recordedData['changes'] as Record<string, unknown>)['url'] as string;
    expect(changes['url']).toBe(new URL(whole).origin);
    return { ...record, data: { ...data, changes: { ...changes, url: whole } } };
  }
  return record;
};

describe('given the log as the previous release wrote it', () => {
  const exported = () => join(dataDir, 'export.ndjson');
  const recordsOf = (file: string) =>
    readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { record: Record<string, unknown> }).record);

  it("events:verify-export verifies that release's export of it", async () => {
    const verified = await admin('events:verify-export', join(fixture, 'expected-export.ndjson'));
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain('OK: 30 events in 10 streams');
  });

  it("events:export gives that release's records, each event's with version 1 and webhook URLs as their origin", async () => {
    expect((await admin('events:export', '--output', exported())).code).toBe(0);
    const [header, ...rest] = recordsOf(exported());
    const [recordedHeader, ...recordedRest] = recordsOf(join(fixture, 'expected-export.ndjson'));
    expect({ ...header, exportedAt: null }).toEqual({ ...recordedHeader, exportedAt: null });
    expect(rest).toHaveLength(recordedRest.length);
    rest.forEach((record, index) => {
      if (record['kind'] === 'event') {
        const { version, ...asBefore } = record;
        expect(version).toBe(1);
        expect(JSON.stringify(withRecordedUrl(asBefore, recordedRest[index]!))).toBe(
          JSON.stringify(recordedRest[index]),
        );
      } else expect(record).toEqual(recordedRest[index]);
    });
  });
});

describe('given the read model as the previous release built it', () => {
  it('projections:verify passes: its documents are a replay of the log as that release stored them', async () => {
    const verified = await admin('projections:verify');
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toContain(
      `OK: the ${goldenOrderIds.length} orders of the read model, built by an earlier version of the service ` +
        '(its documents lack what this one stores, such as shipment), match a replay of the log to log ' +
        'position 30 (30 events)',
    );
    expect(verified.stdout).toContain('the service rebuilds it from the log at its next start');
  });

  it('projections:verify still finds a document of it that differs from the log', async () => {
    const tamperedDir = copyOfFixture();
    try {
      const [tampered] = shippedOrderIds;
      const db = openDatabase({ path: join(tamperedDir, 'read-store.sqlite') });
      db.prepare(
        `UPDATE order_views SET document = json_set(document, '$.note', 'not in the log') WHERE id = ?`,
      ).run(tampered!);
      db.close();
      const verified = await runAdmin(['projections:verify'], { DATA_DIR: tamperedDir });
      expect(verified.code).toBe(1);
      expect(verified.stdout).toContain(`order ${tampered}: differs from the log (note)`);
      expect(verified.stderr).toContain(
        "1 of the read model's orders, built by an earlier version of the service",
      );
    } finally {
      rmSync(tamperedDir, { recursive: true, force: true });
    }
  });
});

describe('when this release serves the log', () => {
  let service: EmbeddedChild;
  const users = new Map<GoldenUser, SignedIn>();

  beforeAll(async () => {
    service = await startEmbeddedChild(dataDir);
    // Their passwords were hashed with the production parameters: each sign-in takes a while.
    for (const user of goldenUsers) users.set(user, await signIn(service.url, goldenCredentials(user)));
  }, 60_000);
  afterAll(async () => {
    await service.kill('SIGTERM');
    expect(service.errors).toEqual([]);
  });

  /** The recorded request, asked again. */
  const ask = async ({
    as,
    method,
    path,
    requestBody,
  }: Pick<RecordedAnswer, 'as' | 'method' | 'path' | 'requestBody'>): Promise<Answer> => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        ...users.get(as)!.auth,
        ...(requestBody === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(requestBody === undefined ? {} : { body: JSON.stringify(requestBody) }),
    });
    return {
      status: response.status,
      etag: response.headers.get('etag'),
      lastModified: response.headers.get('last-modified'),
      body: await response.text(),
    };
  };

  /** A command on a shipped order with If-Match: the ETag of GET /orders/{id}. */
  const confirmShippedOrderIfMatch = async () => {
    const id = shippedOrderIds[0]!;
    const { etag } = await ask({ as: 'staff', method: 'GET', path: `/orders/${id}` });
    const response = await fetch(`${service.url}/orders/${id}/confirm`, {
      method: 'POST',
      headers: { ...users.get('staff')!.auth, 'If-Match': etag! },
    });
    return response.status;
  };

  describe('once its start has rebuilt the read model that release built', () => {
    beforeAll(async () => {
      // The log's last position: a read with it as Consistency-Token waits until the rebuild reached it. A
      // token as the service issues it to staff, with the key this release made in DATA_DIR/keys.
      const staff = users.get('staff')!;
      const me = (await (await fetch(`${service.url}/users/me`, { headers: staff.auth })).json()) as {
        id: string;
      };
      const caughtUp = await fetch(`${service.url}/orders/${goldenOrderIds[0]}`, {
        headers: { ...staff.auth, 'Consistency-Token': consistencyTokenFor({ dataDir }, 30n, me.id) },
      });
      expect(caughtUp.status).toBe(200);
    }, 30_000);

    it(`gives every one of the ${recordedAnswers.length} recorded answers, as recorded but for the deliberate changes`, async () => {
      for (const recorded of recordedAnswers) expectRecordedAnswer(recorded, await ask(recorded));
    });

    it('accepts the ETag of a shipped order in If-Match, and decides (409: a shipped order is not confirmed)', async () => {
      expect(await confirmShippedOrderIfMatch()).toBe(409);
    });

    it('projections:verify passes', async () => {
      const verified = await admin('projections:verify');
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    });
  });

  describe('then projections:rebuild, while it runs', () => {
    beforeAll(async () => {
      const rebuilt = await admin('projections:rebuild');
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      expect(rebuilt.stdout).toContain('rebuilt the order read model from 30 events, up to position 30');
    }, 30_000);

    it('projections:verify passes', async () => {
      const verified = await admin('projections:verify');
      expect(verified.code, verified.stdout).toBe(0);
      expect(verified.stdout).toContain(
        `OK: the ${goldenOrderIds.length} orders of the read model match a replay of the log`,
      );
    });

    it(`gives every one of the ${recordedAnswers.length} recorded answers, as recorded but for the deliberate changes`, async () => {
      for (const recorded of recordedAnswers) expectRecordedAnswer(recorded, await ask(recorded));
    });

    it('accepts the ETag of a shipped order in If-Match: the decision refuses the command', async () => {
      expect(await confirmShippedOrderIfMatch()).toBe(409);
    });
  });
});
