import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.ts';

/** Connections that send nothing: held by one host, they must not hold the service. */
describe('idle connections', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ HTTP_MAX_CONNECTIONS_PER_CLIENT: '20', HTTP_BODY_TIMEOUT_MS: '1000' });
  });
  afterAll(() => service.stop());

  /** Opens a connection from `from` that sends nothing; resolves when the server closes it, with when. */
  const idle = (from: string) => {
    const started = performance.now();
    const socket: Socket = connect({
      host: '127.0.0.1',
      port: Number(new URL(service.url).port),
      localAddress: from,
    });
    socket.on('error', () => undefined);
    const closedAfterMs = new Promise<number>((resolve) =>
      socket.on('close', () => resolve(performance.now() - started)),
    );
    return { socket, closedAfterMs };
  };

  it('one address holds at most HTTP_MAX_CONNECTIONS_PER_CLIENT; another is served meanwhile', async () => {
    const held = Array.from({ length: 30 }, () => idle('127.0.0.3'));
    let closed = 0;
    for (const connection of held) void connection.closedAfterMs.then(() => closed++);
    // The ten beyond the bound are closed at once, well before the timeout could close any.
    const deadline = performance.now() + 800;
    while (closed < 10 && performance.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(10);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    for (const connection of held) connection.socket.destroy();
  });

  it('a connection that sends no request is closed once HTTP_BODY_TIMEOUT_MS has passed', async () => {
    const connection = idle('127.0.0.4');
    const closedAfterMs = await connection.closedAfterMs;
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(closedAfterMs).toBeLessThan(5_000);
  });
});
