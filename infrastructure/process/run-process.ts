import { relative } from 'node:path';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { systemClock, type Clock } from '../clock.ts';
import { ConfigurationError, parseConfig } from '../config/parse-config.ts';
import { createLogger } from '../logging/create-logger.ts';
import { environmentHelp } from './environment-help.ts';
import { listenStartupError } from './listen-error.ts';
import { StartupError } from './startup-error.ts';

export type RunningProcess = { stop: () => Promise<void> };

/**
 * The shell of every entry point: with `--help`, prints the environment variables the process reads (from
 * its zod schema) and exits 0 without starting anything. Otherwise parses the environment once, creates
 * the logger and the clock, starts the process and stops it cleanly on SIGTERM or SIGINT (exit 0, or 1
 * when stopping failed). A bad variable exits 78 (EX_CONFIG) naming it; a StartupError (an unwritable
 * DATA_DIR) prints its one line and exits with its code (73), and so does a port that cannot be listened
 * on (taken, privileged: 69).
 */
export const runProcess = <Schema extends z.ZodType<{ logLevel: string }>>({
  schema,
  start,
}: {
  schema: Schema;
  start: (deps: { config: z.infer<Schema>; logger: Logger; clock: Clock }) => Promise<RunningProcess>;
}): void => {
  if (process.argv.slice(2).includes('--help')) {
    const entryPoint = relative(process.cwd(), process.argv[1] ?? 'main.ts') || 'main.ts';
    process.stdout.write(environmentHelp(schema, `Usage: node ${entryPoint} [--help]`));
    return;
  }
  const main = async () => {
    const config = parseConfig(schema, process.env);
    const logger = createLogger({ level: config.logLevel });
    const running = await start({ config, logger, clock: systemClock });
    let stopping = false;
    const shutdown = async (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      try {
        await running.stop();
        process.exitCode = 0;
      } catch (error) {
        logger.error({ err: error }, 'could not stop cleanly');
        process.exit(1);
      }
    };
    process.once('SIGTERM', (signal) => void shutdown(signal));
    process.once('SIGINT', (signal) => void shutdown(signal));
  };
  main().catch((caught: unknown) => {
    const error = listenStartupError(caught) ?? caught;
    if (error instanceof ConfigurationError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    if (error instanceof StartupError) {
      process.stderr.write(`failed to start: ${error.message}\n`);
      process.exit(error.exitCode);
    }
    process.stderr.write(
      `failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
};
