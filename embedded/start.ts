import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import type { Clock } from '../infrastructure/clock.ts';
import { checkPortAvailable } from '../infrastructure/http/listen.ts';
import { listenStartupError } from '../infrastructure/process/listen-error.ts';
import { checkDataDirWritable, dataDirError, ownerOnlyDataDir } from '../infrastructure/storage/data-dir.ts';
import type { EmbeddedConfig } from './config.ts';
import { startEmbeddedServices } from './services.ts';

export type EmbeddedDeps = {
  config: EmbeddedConfig;
  logger: Logger;
  clock: Clock;
  /** Where one-time notices for the operator go (the demo credentials): stderr, never the log. */
  announce: (text: string) => void;
};

export type RunningService = {
  url: string;
  /** The HTTP handler the port serves: for tests that send requests in-process, without a socket. */
  handler: RequestListener;
  stop: () => Promise<void>;
};

/**
 * The embedded default: every service of the project in this one process, on one port (embedded/services.ts).
 *
 * A DATA_DIR it cannot write (read-only, full, forbidden) stops the start with a StartupError naming it
 * and the cause, before anything is opened there, or when a store fails so while starting. So does a port
 * it cannot listen on (taken, privileged), found out first: a start that fails so makes nothing, neither the
 * stores nor the demo catalogue nor the demo users (whose passwords, shown once, would be lost). The demo
 * users are made only once the port is really bound, too.
 */
export const startEmbedded = async (deps: EmbeddedDeps): Promise<RunningService> => {
  // A port it cannot listen on stops the start before DATA_DIR is touched: nothing seeded, nothing made.
  await checkPortAvailable(deps.config.port, deps.config.host).catch((error: unknown) => {
    throw listenStartupError(error) ?? error;
  });
  checkDataDirWritable(deps.config.dataDir);
  const tightened = ownerOnlyDataDir(deps.config.dataDir);
  if (tightened) deps.logger.warn(tightened);
  try {
    return await startEmbeddedServices(deps);
  } catch (error) {
    throw listenStartupError(error) ?? dataDirError(deps.config.dataDir, error) ?? error;
  }
};
