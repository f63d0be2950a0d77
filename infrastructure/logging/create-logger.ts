import { pino, type DestinationStream, type Logger } from 'pino';
import { safeError } from './safe-error.ts';

/**
 * Fields no log line may show, whoever logs them: a second line of defence behind the rule that request
 * headers, bodies and query strings are never logged (infrastructure/http/request-log.ts).
 */
const redacted = [
  'password',
  '*.password',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'secret',
  '*.secret',
  'authorization',
  '*.authorization',
  'headers',
  '*.headers',
  'body',
  '*.body',
];

/** The JSON logger of every process: pino to stdout (or `destination`), errors reduced by safeError. */
export const createLogger = ({ level }: { level: string }, destination?: DestinationStream): Logger =>
  pino(
    {
      level,
      serializers: { err: safeError },
      redact: { paths: redacted, censor: '[redacted]' },
    },
    destination,
  );
