import { pino, type DestinationStream, type Logger } from 'pino';
import { createBatchedStdout } from './batched-stdout.ts';
import { safeError } from './safe-error.ts';

/**
 * Fields no log line may show, whoever logs them: a second line of defence behind the rule that request
 * headers, bodies and query strings are never logged (infrastructure/http/request-log.ts). They are
 * replaced at the top level of a line and one level down (pino's paths `name` and `*.name`); errors are
 * left to safeError, which keeps none of their other fields.
 *
 * A formatter rather than pino's `redact` option: that one parses its paths again on every line it writes,
 * which cost a few per cent of the CPU of a POST /orders under load (one request log line each).
 */
const redactedFields = new Set([
  'password',
  'token',
  'access_token',
  'refresh_token',
  'secret',
  'authorization',
  'headers',
  'body',
]);
const censor = '[redacted]';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Error);

const withoutSecrets = (fields: Record<string, unknown>) => {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    if (redactedFields.has(key)) (copy ??= { ...fields })[key] = censor;
  }
  return copy ?? fields;
};

const redactSecrets = (line: Record<string, unknown>) => {
  const top = withoutSecrets(line);
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(top)) {
    if (!isPlainObject(value)) continue;
    const inner = withoutSecrets(value);
    if (inner !== value) (copy ??= top === line ? { ...line } : top)[key] = inner;
  }
  return copy ?? top;
};

/** The JSON logger of every process: pino to stdout (or `destination`), errors reduced by safeError. */
export const createLogger = (
  { level }: { level: string },
  destination: DestinationStream = createBatchedStdout(),
): Logger =>
  pino(
    {
      level,
      serializers: { err: safeError },
      formatters: { log: redactSecrets },
    },
    destination,
  );
