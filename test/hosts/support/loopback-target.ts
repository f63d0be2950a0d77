import { startDistributedTestService } from '../../support/distributed-service.ts';
import { loadTestWriteLimits } from '../../support/load-limits.ts';
import type { FaultTarget } from './fault-target.ts';
import { startRecordingReceiver } from './recording-receiver.ts';

/** The stand's process names, as instances of the loopback harness. */
const instances: Record<string, [instance: string, service: Parameters<ProcessStart>[0]]> = {
  cmd1: ['command-api', 'command-api'],
  cmd2: ['second-command-api', 'command-api'],
  qry1: ['query-api', 'query-api'],
  qry2: ['second-query-api', 'query-api'],
  proj: ['projections', 'projections'],
  disp1: ['webhook-dispatcher', 'webhook-dispatcher'],
  disp2: ['second-dispatcher', 'webhook-dispatcher'],
};
type ProcessStart = Awaited<ReturnType<typeof startDistributedTestService>>['processes']['start'];

/**
 * The stand's processes on one loopback (test/support/distributed-service.ts, two of each API and
 * dispatcher, on scripts/services.sh's servers), for developing the load and the checker without a stand:
 * only `kill` and `start` of the service's processes are faults here (HOSTS_TARGET=loopback).
 */
export const loopbackTarget = async (settings: Record<string, string>) => {
  const service = await startDistributedTestService(
    { ...loadTestWriteLimits, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...settings },
    { time: 'real' },
  );
  const { processes } = service;
  await processes.start('command-api', 'second-command-api');
  await processes.start('query-api', 'second-query-api');
  await processes.start('webhook-dispatcher', 'second-dispatcher');
  const receiver = await startRecordingReceiver();
  const target: FaultTarget = {
    baseUrl: service.url,
    receiverUrl: receiver.url,
    eventLogUrl: (service.adminEnv as Record<string, string>)['EVENT_LOG_URL']!,
    mongodb: { url: processes.env['MONGODB_URL']!, database: processes.database },
    adminEnv: service.adminEnv,
    settings,
    async fault(command, name = '') {
      const known = instances[name];
      if (!known || (command !== 'kill' && command !== 'start'))
        throw new Error(`the loopback target cannot ${command} ${name}`);
      if (command === 'kill') await processes.stop(known[0], 'SIGKILL');
      else await processes.start(known[1], known[0]);
    },
  };
  return {
    target,
    async stop() {
      await receiver.stop();
      await service.stop();
    },
  };
};
