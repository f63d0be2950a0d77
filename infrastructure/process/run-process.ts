import { pino, type Logger } from 'pino';
import type { z } from 'zod';
import { systemClock, type Clock } from '../clock.ts';
import { ConfigurationError, parseConfig } from '../config/parse-config.ts';

export type RunningProcess = { stop: () => Promise<void> };

/**
 * The shell of every entry point: parses the environment once, creates the logger and the clock, starts
 * the process and stops it cleanly on SIGTERM or SIGINT. A bad variable exits 78 (EX_CONFIG) naming it.
 */
export const runProcess = <Schema extends z.ZodType<{ logLevel: string }>>({
  schema,
  start,
}: {
  schema: Schema;
  start: (deps: { config: z.infer<Schema>; logger: Logger; clock: Clock }) => Promise<RunningProcess>;
}): void => {
  const main = async () => {
    const config = parseConfig(schema, process.env);
    const logger = pino({ level: config.logLevel });
    const running = await start({ config, logger, clock: systemClock });
    let stopping = false;
    const shutdown = async (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      await running.stop();
      process.exitCode = 0;
    };
    process.once('SIGTERM', (signal) => void shutdown(signal));
    process.once('SIGINT', (signal) => void shutdown(signal));
  };
  main().catch((error: unknown) => {
    if (error instanceof ConfigurationError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    process.stderr.write(
      `failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
};
