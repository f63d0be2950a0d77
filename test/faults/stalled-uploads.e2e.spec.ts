// 1,100 uploads that send their headers and the start of a body, then nothing, against the embedded default
// with its default bounds (HTTP_MAX_REQUESTS_IN_FLIGHT 1000, of which half for bodies still arriving;
// HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT 64; HTTP_MAX_CONNECTIONS_PER_CLIENT 256; HTTP_BODY_TIMEOUT_MS 10 s), no
// credentials: from one loopback
// address, and spread over 200. Before these bounds, they held every slot of the in-flight bound until
// Node's five-minute request timeout, and every other request was answered 503.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { percentile, report, startMeasuredService, type MeasuredService } from './measured-service.ts';

const stalledUploads = 1_100;
const bodyTimeoutMs = 10_000;

type Stalled = { socket: Socket; answer: string; ended: Promise<void>; endedAfterMs: number | null };

/** Opens a connection from `from`, sends a POST's headers and 10 of its 1,000 bytes, then stalls. */
const stall = (port: number, from: string, started: number): Stalled => {
  const socket = connect({ host: '127.0.0.1', port, localAddress: from });
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

/**
 * Opens the stalled uploads (in bursts of 100, a turn of this process's event loop apart: the normal client
 * below shares this process, and 1,100 connects in one turn would delay its own first request here, not
 * there) while a normal client, from 127.0.0.1, reads a product every 100 ms until they are all over.
 */
const underStalledUploads = async (service: MeasuredService, addresses: readonly string[]) => {
  const port = Number(new URL(service.url).port);
  const started = performance.now();
  const uploads: Stalled[] = [];
  const opening = (async () => {
    while (uploads.length < stalledUploads) {
      for (let i = 0; i < 100 && uploads.length < stalledUploads; i++) {
        uploads.push(stall(port, addresses[uploads.length % addresses.length]!, started));
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const allEnded = opening.then(() => Promise.all(uploads.map((upload) => upload.ended)));
  let over = false;
  void allEnded.then(() => (over = true));
  const deadline = started + 2 * bodyTimeoutMs + 15_000;
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
  const endedWithinMs = Math.max(...uploads.map((upload) => upload.endedAfterMs ?? Number.POSITIVE_INFINITY));
  report(
    `${stalledUploads} stalled uploads from ${addresses.length} address(es): answered ` +
      `${JSON.stringify(Object.fromEntries(answers))}; all ended within ${(endedWithinMs / 1000).toFixed(1)} s; ` +
      `normal client from 127.0.0.1: ${latencies.length} requests, statuses ` +
      `${JSON.stringify(Object.fromEntries(statuses))}, p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
      `max ${Math.max(...latencies).toFixed(1)} ms`,
  );
  return { answers, statuses, latencies, endedWithinMs };
};

describe('stalled uploads (1,100, default bounds)', () => {
  let service: MeasuredService | undefined;
  afterEach(async () => {
    await service?.stop();
  });

  it('from one address: 256 connections at most, of which 64 wait and get 408 and the rest 429 at once; a normal client gets its 200 within a second throughout', async () => {
    service = await startMeasuredService({});
    const { answers, statuses, latencies, endedWithinMs } = await underStalledUploads(service, ['127.0.0.2']);
    expect([...statuses.keys()]).toEqual([200]);
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    expect(latencies.length).toBeGreaterThan(bodyTimeoutMs / 200);
    // HTTP_MAX_CONNECTIONS_PER_CLIENT (256): the connections beyond are closed at once, unanswered.
    expect(answers.get('closed')).toBe(stalledUploads - 256);
    expect(answers.get('408')).toBe(64);
    expect(answers.get('429')).toBe(256 - 64);
    // Those refused are answered at once, and their connections closed by the request timeout (twice the
    // body timeout) unless the client sends the rest.
    expect(endedWithinMs).toBeLessThan(2 * bodyTimeoutMs + 5_000);
    expect(service.alive()).toBe(true);
  });

  it('spread over 200 addresses: 500 wait and get 408, the rest are refused at once with 503; a normal client gets its 200 within a second throughout', async () => {
    service = await startMeasuredService({});
    const addresses = Array.from({ length: 200 }, (_, i) => `127.0.50.${i + 2}`);
    const { answers, statuses, latencies, endedWithinMs } = await underStalledUploads(service, addresses);
    expect([...statuses.keys()]).toEqual([200]);
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    expect(latencies.length).toBeGreaterThan(bodyTimeoutMs / 200);
    // Half the in-flight bound is for bodies still arriving: those admitted wait out the body timeout.
    expect(answers.get('408')).toBe(500);
    expect(answers.get('503')).toBe(stalledUploads - 500);
    // Those refused are answered at once, and their connections closed by the request timeout (twice the
    // body timeout) unless the client sends the rest.
    expect(endedWithinMs).toBeLessThan(2 * bodyTimeoutMs + 5_000);
    expect(service.alive()).toBe(true);
  });
});
