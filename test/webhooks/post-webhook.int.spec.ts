import { once } from 'node:events';
import http from 'node:http';
import type { Socket } from 'node:net';
import { text } from 'node:stream/consumers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkPolicy } from '../../infrastructure/outbound-http/network-policy.ts';
import {
  createWebhookPoster,
  type WebhookPoster,
} from '../../infrastructure/outbound-http/webhook-poster.ts';
import {
  checkWebhookUrl,
  createHostResolver,
  type ResolveHost,
} from '../../infrastructure/outbound-http/target-check.ts';
import { startDnsServer, type DnsAnswer, type DnsServer } from '../support/dns-server.ts';

type Received = { method: string; path: string; headers: http.IncomingHttpHeaders; body: string };

type Receiver = {
  port: number;
  url: string;
  received: Received[];
  sockets: Socket[];
  close(): Promise<void>;
};

const allowPrivate: NetworkPolicy = { allowPrivateNetworks: true };
const strict: NetworkPolicy = { allowPrivateNetworks: false };

describe('createWebhookPoster', () => {
  const answers = new Map<string, DnsAnswer>();
  let dns: DnsServer;
  let resolve: ResolveHost;
  const receivers: Receiver[] = [];
  const posters: WebhookPoster[] = [];

  beforeAll(async () => {
    dns = await startDnsServer(answers);
    resolve = createHostResolver({ dnsServers: [dns.address] });
  });
  afterAll(() => dns.stop());
  afterEach(async () => {
    for (const poster of posters.splice(0)) poster.close();
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    answers.clear();
  });

  /** A real HTTP receiver on 127.0.0.1 that records what arrives and answers with `respond`. */
  const startReceiver = async (
    respond: (response: http.ServerResponse) => void = (response) => response.end(),
  ): Promise<Receiver> => {
    const received: Received[] = [];
    const sockets: Socket[] = [];
    const server = http.createServer(async (request, response) => {
      const body = await text(request);
      received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body,
      });
      respond(response);
    });
    server.on('connection', (socket: Socket) => sockets.push(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const receiver: Receiver = {
      port,
      url: `http://127.0.0.1:${port}/hook`,
      received,
      sockets,
      close: () => {
        server.closeAllConnections();
        return new Promise((closed) => server.close(() => closed()));
      },
    };
    receivers.push(receiver);
    return receiver;
  };

  const poster = (
    options: { policy?: NetworkPolicy; timeoutMs?: number; maxResponseBytes?: number } = {},
  ) => {
    const created = createWebhookPoster({ policy: allowPrivate, resolve, ...options });
    posters.push(created);
    return created;
  };

  const event = { url: '', headers: {}, body: '{"type":"order.placed"}' };

  it('POSTs the body with its headers and reports status and response body', async () => {
    const receiver = await startReceiver((response) => response.writeHead(201).end('thanks'));

    const response = await poster().post({
      url: `${receiver.url}?attempt=1`,
      headers: { 'webhook-id': 'msg_1', 'webhook-signature': 'v1,abc' },
      body: '{"type":"order.placed","orderId":"o-1"}',
    });

    expect(response).toMatchObject({
      outcome: 'responded',
      status: 201,
      body: 'thanks',
      bodyTruncated: false,
      retryAfter: null,
    });
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request).toMatchObject({
      method: 'POST',
      path: '/hook?attempt=1',
      body: '{"type":"order.placed","orderId":"o-1"}',
    });
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'order-service-webhooks/1',
      'webhook-id': 'msg_1',
      'webhook-signature': 'v1,abc',
    });
  });

  it('connects to a host name through the configured resolver', async () => {
    const receiver = await startReceiver((response) => response.end('via dns'));
    answers.set('receiver.test', ['127.0.0.1']);
    const queriesBefore = dns.queries;

    const response = await poster().post({ ...event, url: `http://receiver.test:${receiver.port}/hook` });

    expect(response).toMatchObject({ outcome: 'responded', status: 200, body: 'via dns' });
    expect(dns.queries).toBeGreaterThan(queriesBefore);
    expect(receiver.received[0]?.headers.host).toBe(`receiver.test:${receiver.port}`);
  });

  it('times out a receiver that never answers without holding up deliveries to others', async () => {
    const silent = await startReceiver(() => {});
    const prompt = await startReceiver((response) => response.end('at once'));
    const sender = poster({ timeoutMs: 300 });
    const settledInOrder: string[] = [];

    const [timedOut, answered] = await Promise.all([
      sender.post({ ...event, url: silent.url }).finally(() => settledInOrder.push('silent')),
      sender.post({ ...event, url: prompt.url }).finally(() => settledInOrder.push('prompt')),
    ]);

    expect(timedOut.outcome).toBe('timeout');
    expect(timedOut.durationMs).toBeGreaterThanOrEqual(290);
    expect(timedOut.durationMs).toBeLessThan(2_000);
    expect(answered).toMatchObject({ outcome: 'responded', status: 200, body: 'at once' });
    expect(settledInOrder).toEqual(['prompt', 'silent']);
  });

  it('times out a receiver that answers but never finishes its body', async () => {
    const dripping = await startReceiver((response) => {
      response.writeHead(200);
      response.write('first bytes');
    });

    const response = await poster({ timeoutMs: 300 }).post({ ...event, url: dripping.url });

    expect(response.outcome).toBe('timeout');
  });

  it('reports a redirect as its status and does not follow it', async () => {
    const elsewhere = await startReceiver();
    const redirecting = await startReceiver((response) =>
      response.writeHead(302, { Location: elsewhere.url }).end(),
    );

    const response = await poster().post({ ...event, url: redirecting.url });

    expect(response).toMatchObject({ outcome: 'responded', status: 302 });
    expect(elsewhere.sockets).toHaveLength(0);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('reads a large response body only up to the cap and says it was truncated', async () => {
    const receiver = await startReceiver((response) => response.end('x'.repeat(200_000)));

    const response = await poster().post({ ...event, url: receiver.url });

    expect(response).toMatchObject({ outcome: 'responded', status: 200, bodyTruncated: true });
    expect(response.outcome === 'responded' && response.body).toBe('x'.repeat(65_536));
  });

  it('does not flag a body of exactly the cap as truncated', async () => {
    const receiver = await startReceiver((response) => response.end('0123456789abcdef'));

    const response = await poster({ maxResponseBytes: 16 }).post({ ...event, url: receiver.url });

    expect(response).toMatchObject({ body: '0123456789abcdef', bodyTruncated: false });
  });

  it('cuts a truncated body before a character that does not fit whole', async () => {
    const receiver = await startReceiver((response) => response.end('abcd€€'));

    const response = await poster({ maxResponseBytes: 5 }).post({ ...event, url: receiver.url });

    expect(response).toMatchObject({ body: 'abcd', bodyTruncated: true });
  });

  it('reports Retry-After so that 429 and 503 can be honoured', async () => {
    const unavailable = await startReceiver((response) =>
      response.writeHead(503, { 'Retry-After': '120' }).end(),
    );
    const limited = await startReceiver((response) =>
      response.writeHead(429, { 'Retry-After': 'Wed, 21 Oct 2026 07:28:00 GMT' }).end(),
    );
    const sender = poster();

    expect(await sender.post({ ...event, url: unavailable.url })).toMatchObject({
      status: 503,
      retryAfter: '120',
    });
    expect(await sender.post({ ...event, url: limited.url })).toMatchObject({
      status: 429,
      retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT',
    });
  });

  it.each([
    'http://127.0.0.1:PORT/hook',
    'http://2130706433:PORT/hook',
    'http://0x7f.1:PORT/hook',
    'http://[::ffff:127.0.0.1]:PORT/hook',
  ])('refuses the loopback IP literal %s without connecting', async (url) => {
    const receiver = await startReceiver();

    const response = await poster({ policy: strict }).post({
      ...event,
      url: url.replace('PORT', String(receiver.port)),
    });

    expect(response.outcome).toBe('refused');
    expect(response.outcome === 'refused' && response.reason).toMatch(/loopback address/);
    expect(receiver.sockets).toHaveLength(0);
  });

  it('refuses at connect time a name that was rebound to loopback after it was checked', async () => {
    const receiver = await startReceiver();
    let addressQueries = 0;
    answers.set('rebind.test', ({ type }) => {
      if (type === 'AAAA') return [];
      addressQueries += 1;
      return addressQueries === 1 ? ['93.184.216.34'] : ['127.0.0.1'];
    });
    const url = `http://rebind.test:${receiver.port}/hook`;

    await expect(checkWebhookUrl(url, { policy: strict, resolve })).resolves.toBeInstanceOf(URL);
    const response = await poster({ policy: strict }).post({ ...event, url });

    expect(response).toMatchObject({
      outcome: 'refused',
      reason:
        'rebind.test resolves to 127.0.0.1, a loopback address: webhooks cannot target internal networks',
    });
    expect(addressQueries).toBe(2);
    expect(receiver.sockets).toHaveLength(0);
  });

  it('reports a receiver that closes the connection mid-response as a network error', async () => {
    const receiver = await startReceiver((response) => {
      response.writeHead(200, { 'Content-Length': '1000' });
      response.write('only part of it', () => response.socket?.destroy());
    });

    const response = await poster().post({ ...event, url: receiver.url });

    expect(response).toMatchObject({ outcome: 'network-error', error: expect.any(String) });
  });

  it('reports a refused connection as a network error', async () => {
    const receiver = await startReceiver();
    await receiver.close();

    const response = await poster().post({ ...event, url: receiver.url });

    expect(response).toMatchObject({
      outcome: 'network-error',
      error: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('reports an unusable URL as refused instead of rejecting', async () => {
    const sender = poster();

    expect(await sender.post({ ...event, url: 'ftp://127.0.0.1/hook' })).toMatchObject({
      outcome: 'refused',
    });
    expect(await sender.post({ ...event, url: 'no url' })).toMatchObject({ outcome: 'refused' });
  });

  it('reports a header HTTP cannot carry as a network error instead of rejecting', async () => {
    const receiver = await startReceiver();

    const response = await poster().post({ ...event, url: receiver.url, headers: { 'x-bad': 'a\nb' } });

    expect(response.outcome).toBe('network-error');
    expect(receiver.sockets).toHaveLength(0);
  });

  it('reports a host name that stopped resolving as a network error', async () => {
    const response = await poster().post({ ...event, url: 'http://gone.test/hook' });

    expect(response.outcome).toBe('network-error');
  });

  it('keeps connections alive between deliveries until close()', async () => {
    const receiver = await startReceiver();
    const sender = poster();
    await sender.post({ ...event, url: receiver.url });
    const [socket] = receiver.sockets;
    expect(socket?.destroyed).toBe(false);

    const closed = once(socket as Socket, 'close');
    sender.close();
    await closed;

    expect(receiver.sockets).toHaveLength(1);
  });
});
