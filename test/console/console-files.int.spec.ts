import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { exportEvents, verifyExport } from '../../cli/event-export.ts';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import { buildAuditExport, exportSource } from '../../query-api/console/app/lib/audit-export.js';
import { eventResource } from '../../query-api/audit/event-resource.ts';
import { immutableCacheControl, loadConsoleAssets } from '../../query-api/console/console-assets.ts';
import { consoleShell } from '../../query-api/console/console-routes.ts';
import { anEvent } from '../support/events.ts';

describe('the files the console serves', () => {
  const assets = loadConsoleAssets();

  it('names every file under one version, a hash of them all, cacheable for a year', () => {
    expect(assets.version).toMatch(/^[0-9a-f]{16}$/);
    expect(loadConsoleAssets().version).toBe(assets.version);
    for (const path of [
      'main.js',
      'app.js',
      'console.css',
      'icon.svg',
      'vendor/preact.js',
      'vendor/hooks.js',
    ]) {
      expect(assets.files.get(path)?.cacheControl, path).toBe(immutableCacheControl);
    }
    expect(assets.files.get('main.js')?.contentType).toBe('text/javascript; charset=utf-8');
    expect(assets.files.get('console.css')?.contentType).toBe('text/css; charset=utf-8');
    // Types and configuration stay on the server's side.
    expect([...assets.files.keys()].filter((path) => !/\.(js|css|svg)$/.test(path))).toEqual([]);
  });

  it('has every module a browser imports, at the path it imports it from, and no package name left', () => {
    const missing: string[] = [];
    // The module specifiers of import and export statements (`import {…} from '…'`, `import '…'`); not the
    // word "from" in code or strings (`{ from: … }`, `['from', 'until']`), nor JSDoc's type-only imports.
    const importPatterns = [
      /^\s*(?:import|export)\s[^;]*?\bfrom\s*(["'])([^"'\s,]+)\1/gm,
      /^\s*import\s*(["'])([^"'\s,]+)\1/gm,
    ];
    let found = 0;
    for (const [path, file] of assets.files) {
      if (!path.endsWith('.js')) continue;
      const text = file.body.toString('utf8');
      const specifiers = importPatterns.flatMap((pattern) =>
        [...text.matchAll(pattern)].map((match) => match[2]!),
      );
      found += specifiers.length;
      for (const specifier of specifiers) {
        if (!specifier.startsWith('.')) {
          missing.push(`${path} imports the package ${specifier}`);
          continue;
        }
        const target = new URL(specifier, `https://console.example/${path}`).pathname.slice(1);
        if (!assets.files.has(target)) missing.push(`${path} imports ${specifier}, which is not served`);
      }
    }
    expect(missing).toEqual([]);
    // The patterns find the imports there are (main.js alone has several).
    expect(found).toBeGreaterThan(30);
  });

  it('loads the entry module and the style sheet from the page, with no inline script or style', () => {
    const page = consoleShell(assets, '/console/command');
    expect(page).toContain(`<script type="module" src="/console/assets/${assets.version}/main.js"></script>`);
    expect(page).toContain(`<link rel="stylesheet" href="/console/assets/${assets.version}/console.css">`);
    expect(page).toContain('<meta name="order-console-command-base" content="/console/command">');
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
  });
});

describe("the console's export against the CLI's, for the same log", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'console-export-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('chains the same records but for what the API does not show, and both verify', async () => {
    const eventStore = createSqliteEventStore({ path: join(dataDir, 'events.sqlite') });
    const placed = anEvent('OrderPlaced', { orderId: 'o1', total: { amountMinor: 1999, currency: 'EUR' } });
    await eventStore.appendToStream('order-o1', [placed, anEvent('OrderConfirmed', { orderId: 'o1' })], {
      expectedRevision: 'no-stream',
    });
    await eventStore.appendToStream(
      'webhook-subscription-s1',
      [anEvent('WebhookSubscriptionRegistered', { url: 'https://hooks.example/', secret: 'sealed:abc' })],
      { expectedRevision: 'no-stream' },
    );
    const system = {
      ...anEvent('OrderCancelled', { orderId: 'o1' }),
      metadata: { ...placed.metadata, actor: null },
    };
    await eventStore.appendToStream('order-o1', [system], { expectedRevision: 1 });

    const exportedAt = '2026-11-21T12:00:00.000Z';
    const cliLines: string[] = [];
    // These events hold no sealed personal fields: the CLI's opening leaves them as they are.
    const reveal = async <T>(value: T) => value;
    await exportEvents(eventStore, { exportedAt, reveal }, async (line) => {
      cliLines.push(line);
    });
    // GET /audit/events, page by page (2 events a page), as an auditor sees them.
    const all = await eventStore.readAll({ maxCount: 100 });
    const viewer = { userId: 'auditor-1', seesEveryActor: true };
    const built = await buildAuditExport({
      exportedAt,
      readPage: async (after) => {
        const rest = after === null ? all : all.filter((event) => event.position > BigInt(after));
        return {
          meta: { perPage: 2 },
          links: { next: rest.length > 2 ? 'more' : null, prev: null },
          data: rest.slice(0, 2).map((event) => eventResource(event, viewer)),
        };
      },
    });
    await eventStore.close();

    const records = (lines: string[]) =>
      lines.map((line) => (JSON.parse(line) as { record: unknown }).record);
    const fromCli = records(cliLines) as Record<string, unknown>[];
    const fromConsole = records(built.lines);
    // The documented differences: the header names its source; no causation id; no sealed secret.
    const expected = fromCli.map((record) => {
      if (record['kind'] === 'header') return { ...record, source: exportSource };
      if (record['kind'] !== 'event') return record;
      const { causationId: _causationId, ...metadata } = record['metadata'] as Record<string, unknown>;
      const data = record['data'] as Record<string, unknown>;
      return {
        ...record,
        data: 'secret' in data ? { ...data, secret: '(sealed; not shown)' } : data,
        metadata,
      };
    });
    expect(fromConsole).toEqual(expected);
    // As text too, field order included: the records are hashed as text.
    expect(built.lines.map((line) => /"record":(.*)\}$/.exec(line.trim())?.[1])).toEqual(
      expected.map((record) => JSON.stringify(record)),
    );
    expect(built).toMatchObject({
      events: 4,
      lastPosition: all.at(-1)!.position.toString(),
      withheldSecrets: 1,
    });

    const verified = await verifyExport(Readable.from(built.lines.join('').split('\n')));
    expect(verified).toMatchObject({ events: 4, streams: 2, finalHash: built.finalHash });
  });
});
