// 1,100 uploads that send their headers and the start of a body, then nothing, against the embedded default
// with its default bounds (HTTP_MAX_REQUESTS_IN_FLIGHT 1000, HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT 64,
// HTTP_BODY_TIMEOUT_MS 10 s), no credentials. Before these bounds, they held every slot of the in-flight
// bound until Node's five-minute request timeout, and every other request was answered 503.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentile, report, startMeasuredService, type MeasuredService } from './measured-service.ts';

const stalledUploads = 1_100;
/** The stalled clients' own loopback address; the normal client comes from 127.0.0.1. */
const stalledFrom = '127.0.0.2';
const bodyTimeoutMs = 10_000;

type Stalled = { socket: Socket; answer: string; ended: Promise<void>; endedAfterMs: number | null };

/** Opens a connection from `stalledFrom`, sends a POST's headers and 10 of its 1,000 bytes, then stalls. */
const stall = (port: number, started: number): Stalled => {
  const socket = connect({ host: '127.0.0.1', port, localAddress: stalledFrom });
  const stalled: Stalled = { socket, answer: '', ended: Promise.resolve(), endedAfterMs: null };
  stalled.ended = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => (stalled.answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      stalled.endedAfterMs = performance.now() - started;
      resolve();
    });
  });
  socket.on('connect', () =>
    socket.write(
      'POST /orders HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Content-Length: 1000\r\n\r\n{"items":[',
    ),
  );
  return stalled;
};

describe('stalled uploads (1,100 from one loopback address, default bounds)', () => {
  let service: MeasuredService;
  beforeAll(async () => {
    service = await startMeasuredService({});
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('a normal client gets its 200 within a second throughout; every stalled upload is answered 408 or 429, or closed', async () => {
    const port = Number(new URL(service.url).port);
    const started = performance.now();
    const uploads: Stalled[] = [];
    // Opened in bursts of 100, a turn of this process's event loop apart: the normal client below shares
    // this process, and 1,100 connects in one turn would delay its own first request here, not there.
    const opening = (async () => {
      while (uploads.length < stalledUploads) {
        for (let i = 0; i < 100 && uploads.length < stalledUploads; i++) uploads.push(stall(port, started));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();

    // A normal client, from another address, reads a product every 100 ms until the stalled ones are over.
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    const allEnded = opening.then(() => Promise.all(uploads.map((upload) => upload.ended)));
    let over = false;
    void allEnded.then(() => (over = true));
    const deadline = started + bodyTimeoutMs + 15_000;
    while (!over && performance.now() < deadline) {
      const sent = performance.now();
      const response = await fetch(`${service.url}/products/1001`, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      latencies.push(performance.now() - sent);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await Promise.race([allEnded, new Promise((resolve) => setTimeout(resolve, 1_000))]);
    for (const upload of uploads) upload.socket.destroy();

    const statusOf = (upload: Stalled) => /^HTTP\/1\.1 (\d{3}) /.exec(upload.answer)?.[1] ?? 'closed';
    const answers = new Map<string, number>();
    for (const upload of uploads) answers.set(statusOf(upload), (answers.get(statusOf(upload)) ?? 0) + 1);
    const endedAfter = uploads.map((upload) => upload.endedAfterMs ?? Number.POSITIVE_INFINITY);
    report(
      `${stalledUploads} stalled uploads from ${stalledFrom}: answered ${JSON.stringify(Object.fromEntries(answers))}; ` +
        `all ended within ${(Math.max(...endedAfter) / 1000).toFixed(1)} s; normal client from 127.0.0.1: ` +
        `${latencies.length} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `p50 ${percentile(latencies, 50).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms (first five: ${latencies
          .slice(0, 5)
          .map((l) => l.toFixed(0))
          .join(', ')} ms)`,
    );

    expect([...statuses.keys()]).toEqual([200]);
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    expect(latencies.length).toBeGreaterThan(bodyTimeoutMs / 200);
    // Those admitted (64, the per-client bound) wait for their body and get 408 when the timeout passes;
    // the others are refused at once with 429, and their connections closed rather than drained.
    expect(answers.get('408')).toBe(64);
    expect(answers.get('429')).toBe(stalledUploads - 64);
    expect(Math.max(...endedAfter)).toBeLessThan(bodyTimeoutMs + 5_000);
    expect(service.alive()).toBe(true);
  });
});
