import { afterAll, expect, it } from 'vitest';
import { startDistributedTestService } from '../support/distributed-service.ts';
import { pollUntil } from '../support/embedded-child.ts';
import {
  failedAttemptLine,
  logLines,
  orderToFailingReceiver,
  privateNetworksWarning,
} from '../support/webhook-log.ts';

// What the distributed mode's processes log about webhooks, as an operator reads each process's log: the
// start-up warning of the processes that reach webhook targets while private networks are allowed, and a
// line at warn for an attempt that did not deliver, never the URL, secret, signature or payload.
// test/operations/webhook-warnings.e2e.spec.ts shows the same of the embedded default.

const stops: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

it('warns at start in the command API and the dispatcher, and the dispatcher logs a failed attempt at warn without the secret or the payload', async () => {
  const service = await startDistributedTestService(
    {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '60000',
      // The most any process logs: nothing forbidden may show even there.
      LOG_LEVEL: 'debug',
    },
    { time: 'real' },
  );
  stops.push(() => service.stop());
  const { processes } = service;
  const linesOf = (instance: string) => logLines(processes.outputOf(instance).log);

  // The two processes that check or reach webhook targets warn once each.
  for (const instance of ['command-api', 'webhook-dispatcher'])
    expect(
      linesOf(instance).filter((line) => line.msg === privateNetworksWarning),
      instance,
    ).toEqual([expect.objectContaining({ level: 40, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' })]);

  const { admin, subscription, receiver, forbidden: common } = await orderToFailingReceiver(service, stops);

  const failed = await pollUntil('the failed attempt in the dispatcher log', () =>
    linesOf('webhook-dispatcher').find((line) => line.msg === 'webhook delivery failed'),
  );
  const [attempt] = await pollUntil('the failed attempt in the delivery log', async () => {
    const attempts = await admin.attempts(subscription.id);
    return attempts.length > 0 && attempts;
  });
  expect(failed).toEqual(failedAttemptLine(subscription.id, attempt!));

  const forbidden = { ...common(), payload: receiver.received[0]!.body };
  expect(processes.instances().sort()).toEqual(
    ['command-api', 'projections', 'query-api', 'webhook-dispatcher'].sort(),
  );
  for (const instance of processes.instances()) {
    const { log, stderr } = processes.outputOf(instance);
    for (const [what, text] of Object.entries(forbidden)) {
      expect(log, `${what} in the log of the ${instance}`).not.toContain(text);
      expect(stderr, `${what} in the stderr of the ${instance}`).not.toContain(text);
    }
  }
});
