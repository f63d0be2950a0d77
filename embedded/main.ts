// Composition root of the embedded default: `npm start`.
import { pino } from 'pino';
import { systemClock } from '../infrastructure/clock.ts';
import { ConfigurationError, parseConfig } from '../infrastructure/config/parse-config.ts';
import { embeddedConfigSchema } from './config.ts';
import { startEmbedded } from './start.ts';

const main = async () => {
  const config = parseConfig(embeddedConfigSchema, process.env);
  const logger = pino({ level: config.logLevel });
  const service = await startEmbedded({
    config,
    logger,
    clock: systemClock,
    announce: (text) => process.stderr.write(`${text}\n`),
  });

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await service.stop();
    process.exitCode = 0;
  };
  process.once('SIGTERM', (signal) => void shutdown(signal));
  process.once('SIGINT', (signal) => void shutdown(signal));
};

main().catch((error: unknown) => {
  if (error instanceof ConfigurationError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  process.stderr.write(
    `failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
