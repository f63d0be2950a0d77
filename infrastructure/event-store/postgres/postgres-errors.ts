import { EventLogUnavailableError } from '../event-store.ts';

/** What the client or the socket says when the server is out of reach. */
const connectionCodes = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * SQLSTATEs of a server that cannot serve now: connection exceptions (class 08), shutting down or starting
 * (57P01-57P03), too many connections (53300), a statement timeout (57014), and a standby reached instead
 * of the primary in the middle of a failover (25006, read-only transaction).
 */
const unavailableStates = new Set(['57P01', '57P02', '57P03', '53300', '57014', '25006']);

const isUnavailable = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return connectionCodes.has(code) || unavailableStates.has(code) || code.startsWith('08');
};

/** Runs a call on the log, turning "the server is out of reach" into EventLogUnavailableError. */
export const whileReachable = async <T>(call: () => Promise<T>): Promise<T> => {
  try {
    return await call();
  } catch (error) {
    if (!isUnavailable(error)) throw error;
    throw new EventLogUnavailableError('the PostgreSQL event log cannot be reached now', { cause: error });
  }
};
