import { randomUUID } from 'node:crypto';

/** One HTTP exchange as the load saw it: an answer's status, or no answer (timed out, connection failed). */
export type Exchange = {
  /** ms since the epoch, when the request was sent. */
  at: number;
  operation: string;
  outcome: number | 'timeout' | 'connection-failed';
  latencyMs: number;
  /** A 503's (or 409's, 429's) Retry-After, when it had one. */
  retryAfter: string | null;
  /** The X-Request-Id the answer carried: what the service's log lines of a 5xx name. */
  requestId: string | null;
};

/** What a write finally came to: its first 2xx (acknowledged), or the last answer before the client gave up. */
export type WriteResult = {
  /** Sent as X-Request-Id on every try: the command API records it in the events the write appends. */
  requestId: string;
  acknowledged: boolean;
  status: number | null;
  body: unknown;
  headers: Headers | null;
  tries: number;
};

export type CarefulClientOptions = {
  baseUrl: string;
  /** Past this, a request counts as hung, and the client retries it (a write with the same key). */
  timeoutMs: number;
  /** How long a write is retried before the client gives up on it (then it is not acknowledged). */
  giveUpAfterMs: number;
  /** Every exchange, for the figures and the checker. */
  record: (exchange: Exchange) => void;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retry-After in ms, bounded: a careful client honours it, but no refusal should park it for long. */
const pauseBefore = (retryAfter: string | null, tries: number) => {
  const seconds = Number(retryAfter);
  const asked = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
  return Math.min(Math.max(asked, 100 * 2 ** Math.min(tries, 4)), 2000);
};

/**
 * A client as a careful integrator writes one: every request bounded by a timeout; every write sent with an
 * Idempotency-Key and an X-Request-Id, and, when it timed out, failed to connect or was answered 5xx (or
 * 409/429 with Retry-After: the key still in progress, a limit), sent again with the same key until its
 * first 2xx, which is the acknowledgement.
 */
export const carefulClient = ({ baseUrl, timeoutMs, giveUpAfterMs, record }: CarefulClientOptions) => {
  const exchange = async (
    operation: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<{ response: Response | null; text: string }> => {
    const at = Date.now();
    const started = performance.now();
    const finish = (outcome: Exchange['outcome'], answer?: Response) =>
      record({
        at,
        operation,
        outcome,
        latencyMs: performance.now() - started,
        retryAfter: answer?.headers.get('retry-after') ?? null,
        requestId: answer?.headers.get('x-request-id') ?? null,
      });
    try {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      finish(response.status, response);
      return { response, text };
    } catch (error) {
      const name = (error as Error).name;
      finish(name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'connection-failed');
      return { response: null, text: '' };
    }
  };

  // Any 5xx is retried (a 500 releases the key, so the retry runs again); only a 503 with Retry-After is an
  // answer the checker accepts during a fault.
  const retryable = (response: Response | null) =>
    response === null ||
    response.status >= 500 ||
    ((response.status === 409 || response.status === 429) && response.headers.has('retry-after'));

  return {
    /** A write, retried with the same Idempotency-Key and X-Request-Id until its first 2xx or giving up. */
    async write(
      operation: string,
      path: string,
      auth: Record<string, string>,
      body?: unknown,
    ): Promise<WriteResult> {
      const requestId = randomUUID();
      const headers = { ...auth, 'Idempotency-Key': requestId, 'X-Request-Id': requestId };
      const deadline = performance.now() + giveUpAfterMs;
      for (let tries = 1; ; tries++) {
        const { response, text } = await exchange(operation, 'POST', path, headers, body);
        const done = !retryable(response) || performance.now() > deadline;
        if (done) {
          const acknowledged = response !== null && response.status >= 200 && response.status < 300;
          return {
            requestId,
            acknowledged,
            status: response?.status ?? null,
            body: text && response?.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
            headers: response?.headers ?? null,
            tries,
          };
        }
        await sleep(pauseBefore(response?.headers.get('retry-after') ?? null, tries));
      }
    },
    /** A read, tried once: its status (null without an answer) and body. */
    async read(operation: string, path: string, headers: Record<string, string>) {
      const { response, text } = await exchange(operation, 'GET', path, headers);
      return {
        status: response?.status ?? null,
        body:
          text && response?.headers.get('content-type')?.includes('json')
            ? (JSON.parse(text) as unknown)
            : text,
      };
    },
  };
};

export type CarefulClient = ReturnType<typeof carefulClient>;
