import { StartupError } from './startup-error.ts';

/** EX_UNAVAILABLE of sysexits.h: what the process needs (its port) is not available to it. */
export const portUnavailableExitCode = 69;

const causes: Record<string, string> = {
  EADDRINUSE: 'the port is in use (set PORT)',
  EACCES: 'permission denied: ports below 1024 need privileges (set PORT)',
  EADDRNOTAVAIL: 'the address is not one of this machine (set HOST)',
};

/**
 * A listening socket that could not be opened (the port is taken, privileged, or the address is not this
 * machine's) as a StartupError of one line naming the address, the cause and the variable to change, such
 * as `cannot listen on 127.0.0.1:3000: the port is in use (set PORT)`. Null for any other error.
 */
export const listenStartupError = (error: unknown): StartupError | null => {
  if (!(error instanceof Error)) return null;
  const { code, syscall, address, port } = error as NodeJS.ErrnoException & {
    address?: string;
    port?: number;
  };
  const cause = code === undefined ? undefined : causes[code];
  if (syscall !== 'listen' || cause === undefined) return null;
  const where =
    address === undefined ? `port ${port}` : `${address.includes(':') ? `[${address}]` : address}:${port}`;
  return new StartupError(`cannot listen on ${where}: ${cause}`, { exitCode: portUnavailableExitCode });
};
