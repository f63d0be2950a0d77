import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_STREAM } from '../../infrastructure/event-store/event-store.ts';
import { createSqliteEventStore } from '../../infrastructure/event-store/sqlite-event-store.ts';
import { events, uniqueStreamId } from '../support/events.ts';

const child = fileURLToPath(new URL('../support/event-store-child.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'event-store-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const startChild = (...args: string[]): ChildProcessWithoutNullStreams =>
  spawn(process.execPath, [child, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });

const exited = (process: ChildProcessWithoutNullStreams) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    process.once('exit', (code, signal) => resolve({ code, signal })),
  );

describe('embedded event log durability', () => {
  it('keeps every acknowledged append when the process is killed with SIGKILL mid-stream', async () => {
    const path = join(dir, 'killed.sqlite');
    const writer = startChild('append-until-killed', path);
    const stderr: string[] = [];
    writer.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    const acknowledged: { streamId: string; revision: number; position: bigint }[] = [];
    const gone = exited(writer);

    for await (const line of createInterface({ input: writer.stdout })) {
      const [, streamId, revision, position] = line.split(' ');
      acknowledged.push({ streamId: streamId!, revision: Number(revision), position: BigInt(position!) });
      if (acknowledged.length === 3000) writer.kill('SIGKILL');
    }
    expect(await gone, stderr.join('')).toMatchObject({ signal: 'SIGKILL' });

    const integrity = new DatabaseSync(path);
    expect(integrity.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    integrity.close();

    const store = createSqliteEventStore({ path });
    const log = await store.readAll({ maxCount: 1_000_000 });
    const stored = new Map(log.map((e) => [e.position, e]));
    for (const ack of acknowledged) {
      expect(stored.get(ack.position), `acknowledged position ${ack.position}`).toMatchObject({
        streamId: ack.streamId,
        revision: ack.revision,
      });
    }
    // Anything beyond the acknowledged appends is whole events that committed just before the kill: no gaps.
    expect(log.map((e) => e.position)).toEqual(log.map((_, i) => BigInt(i + 1)));
    const next = await store.appendToStream(uniqueStreamId(), events(1), { expectedRevision: NO_STREAM });
    expect(next.position).toBe(BigInt(log.length + 1));
    await store.close();
  });

  it('lets exactly one append win when four processes race at the same revision of one file', async () => {
    const path = join(dir, 'raced.sqlite');
    const streamId = uniqueStreamId();
    const store = createSqliteEventStore({ path });
    await store.appendToStream(streamId, events(1), { expectedRevision: NO_STREAM });

    const writers = Array.from({ length: 4 }, () => startChild('race', path, streamId, '50'));
    const lines = writers.map((writer) => createInterface({ input: writer.stdout })[Symbol.asyncIterator]());
    for (const line of lines) expect((await line.next()).value).toBe('ready');
    for (const writer of writers) writer.stdin.write('go\n');
    const results = await Promise.all(
      lines.map(
        async (line) => JSON.parse((await line.next()).value as string) as { won: number; lost: number },
      ),
    );

    expect(results.reduce((sum, r) => sum + r.won, 0)).toBe(1);
    expect(results.reduce((sum, r) => sum + r.lost, 0)).toBe(199);
    expect((await store.readStream(streamId)).map((e) => e.revision)).toEqual([0, 1]);
    await store.close();
  });

  it('keeps the log and continues its positions across a restart', async () => {
    const path = join(dir, 'restarted.sqlite');
    const streamId = uniqueStreamId();
    const first = createSqliteEventStore({ path });
    const appended = await first.appendToStream(streamId, events(3), { expectedRevision: NO_STREAM });
    await first.close();

    const second = createSqliteEventStore({ path });
    expect(await second.headPosition()).toBe(appended.position);
    const more = await second.appendToStream(streamId, events(1), { expectedRevision: 2 });
    expect(more.position).toBe(appended.position + 1n);
    expect(await second.readStream(streamId)).toHaveLength(4);
    await second.close();
  });
});
