// A process of the distributed mode, as its own main.ts starts it, except for the clock: the test moves it
// over IPC. Started by test/support/distributed-service.ts: `node service-process.ts <service>`.
import { commandApiConfigSchema } from '../../command-api/config.ts';
import { startCommandApi } from '../../command-api/start-command-api.ts';
import { parseConfig } from '../../infrastructure/config/parse-config.ts';
import { createLogger } from '../../infrastructure/logging/create-logger.ts';
import { projectionsConfigSchema } from '../../projections/config.ts';
import { startProjections } from '../../projections/start-projections.ts';
import { queryApiConfigSchema } from '../../query-api/config.ts';
import { startQueryApi } from '../../query-api/start-query-api.ts';
import { dispatcherConfigSchema } from '../../webhook-dispatcher/config.ts';
import { startDispatcherProcess } from '../../webhook-dispatcher/start-dispatcher-process.ts';
import { testClock, type TestTime } from './test-clocks.ts';
import { reportMongoCommands, type MongoCommand } from './mongo-command-counter.ts';

export type ServiceName = 'command-api' | 'query-api' | 'projections' | 'webhook-dispatcher';

export type ToChild = { type: 'advance'; ms: number; id: number } | { type: 'flush'; id: number };
export type FromChild =
  | { type: 'listening'; url: string }
  | { type: 'advanced'; id: number }
  | { type: 'announce'; text: string }
  | { type: 'mongo-command'; command: MongoCommand }
  | { type: 'flushed'; id: number };

const send = (message: FromChild) => process.send?.(message);

const start = async (service: ServiceName) => {
  const clock = testClock((process.env['TEST_TIME'] ?? 'manual') as TestTime);
  // With TEST_MONGO_COMMANDS set, every MongoDB command this process sends is reported to the test, in
  // order; a flush answers after every command reported before it (IPC keeps order).
  const instance = process.env['TEST_MONGO_COMMANDS'];
  if (instance) reportMongoCommands(instance, (command) => send({ type: 'mongo-command', command }));
  process.on('message', (message: ToChild) => {
    if (message.type === 'flush') return send({ type: 'flushed', id: message.id });
    if (message.type !== 'advance') return;
    void clock.advance(message.ms).then(() => send({ type: 'advanced', id: message.id }));
  });
  const env = process.env;
  const logger = (level: string) => createLogger({ level });
  switch (service) {
    case 'command-api': {
      const config = parseConfig(commandApiConfigSchema, env);
      const announce = (text: string) => send({ type: 'announce', text });
      return startCommandApi({ config, logger: logger(config.logLevel), clock, announce });
    }
    case 'query-api': {
      const config = parseConfig(queryApiConfigSchema, env);
      return startQueryApi({ config, logger: logger(config.logLevel), clock });
    }
    case 'projections': {
      const config = parseConfig(projectionsConfigSchema, env);
      return startProjections({ config, logger: logger(config.logLevel) });
    }
    case 'webhook-dispatcher': {
      const config = parseConfig(dispatcherConfigSchema, env);
      return startDispatcherProcess({ config, logger: logger(config.logLevel), clock });
    }
  }
};

const running = await start(process.argv[2] as ServiceName);
send({ type: 'listening', url: running.url });
process.once('SIGTERM', () => {
  void running.stop().then(() => process.exit(0));
});
process.on('disconnect', () => {
  void running.stop().then(() => process.exit(0));
});
