import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { RequestHandler } from 'express';
import { Counter, Gauge, type Registry } from 'prom-client';
import { problem, sendProblem } from './problem-details.ts';
import { hasBody } from './request-body.ts';

export type LoadSheddingConfig = {
  /** Requests under way at once; beyond, every new request is refused. 0: no bound. */
  maxRequestsInFlight: number;
  /** Requests under way at once from one client address; beyond, its new requests get 429. 0: no bound. */
  maxRequestsInFlightPerClient: number;
  /**
   * The event loop's mean delay over the last half second, in ms: beyond it a share of new requests is
   * refused, growing from none at the bound to all at twice the bound. 0: no bound.
   */
  maxEventLoopDelayMs: number;
};

/** What operators and orchestrators ask of an overloaded process: never refused, never counted. */
export const neverShedPaths: readonly string[] = ['/health', '/ready', '/metrics'];

/** Retry-After of a refusal: overload passes in seconds or it needs more processes, not a longer wait. */
export const overloadRetryAfterSeconds = 1;

/** The histogram's timer ticks this often; a tick's recorded value is this plus the loop's delay. */
const resolutionMs = 10;

export type LoadShedding = {
  /** Refuses a request at once, before its body is read or its token checked, while over a bound. */
  middleware: RequestHandler;
  /** Stops measuring the event loop. */
  stop: () => void;
};

type Reason = 'in-flight' | 'uploads' | 'event-loop-delay' | 'per-client';

const details: Record<Reason, string> = {
  'in-flight': 'The service has too many requests under way.',
  uploads: 'The service is receiving too many request bodies at once.',
  'event-loop-delay': 'The service is running behind on the requests it has.',
  'per-client': 'You have too many requests under way at once.',
};

/**
 * Load shedding for one HTTP process: a request that arrives while too many are under way, or while the
 * event loop runs late, is answered at once with 503 `overloaded` and Retry-After, so that the requests
 * admitted finish in bounded time and memory instead of every request slowing down together.
 *
 * - Requests in flight: past the bound, every new request is refused (a bound on the memory and the work
 *   the process has taken on).
 * - Event-loop delay: the mean delay of the loop's ticks, read on demand by requests (no timer of its
 *   own) at most once per `windowMs`, holding until the next reading. Past the bound, a share of requests
 *   is refused, from none at the bound to all at twice the bound: shedding lowers the delay, and the
 *   share settles where the admitted load keeps the delay near the bound, rather than swinging between
 *   refusing everyone (the loop idle on cheap refusals) and no one. Half a second tells a loop that stays
 *   late (overload: every turn long) from one long turn now and then (a GC pause, a big synchronous job),
 *   which would not justify refusing anyone. The first request only starts the first window: what the
 *   process did while starting is not load.
 *
 * Refusals are counted in http_requests_shed_total{reason}; the requests under way are
 * http_requests_in_flight.
 */
export const startLoadShedding = ({
  config,
  errorTypeBase,
  metrics,
  windowMs = 500,
  random = Math.random,
}: {
  config: LoadSheddingConfig;
  /** `{error_type_base}` of the refusals' problem type. */
  errorTypeBase: string;
  metrics: Registry;
  /** How long one reading of the event loop's delay holds. */
  windowMs?: number;
  /** Draws which requests of a share to refuse. */
  random?: () => number;
}): LoadShedding => {
  const { maxRequestsInFlight, maxRequestsInFlightPerClient, maxEventLoopDelayMs } = config;
  const maxUploadsInFlight = Math.ceil(maxRequestsInFlight / 2);
  let uploadsInFlight = 0;
  const histogram = maxEventLoopDelayMs > 0 ? monitorEventLoopDelay({ resolution: resolutionMs }) : null;
  histogram?.enable();
  let inFlight = 0;
  /** Requests under way per client address; an address leaves the map with its last request. */
  const inFlightByClient = new Map<string, number>();
  let windowStart: number | undefined;
  /** The share of requests to refuse until the next reading, 0 to 1. */
  let share = 0;

  const shed = new Counter({
    name: 'http_requests_shed_total',
    help:
      'Requests refused before any work, by the bound they met: in-flight, uploads (bodies still arriving) ' +
      'or event-loop-delay (503 overloaded), or per-client (429).',
    labelNames: ['reason'] as const,
    registers: [metrics],
  });
  for (const reason of Object.keys(details)) shed.inc({ reason }, 0);
  new Gauge({
    name: 'http_requests_in_flight',
    help:
      'Requests under way (admitted, not yet answered), health, readiness and metrics aside, and uploads ' +
      'whose body is still arriving.',
    registers: [metrics],
    collect() {
      this.set(inFlight + uploadsInFlight);
    },
  });

  const shareToShed = () => {
    if (!histogram) return 0;
    const at = performance.now();
    if (windowStart === undefined) {
      histogram.reset();
      windowStart = at;
    } else if (at - windowStart >= windowMs) {
      const delayMs = histogram.count > 0 ? Math.max(0, histogram.mean / 1e6 - resolutionMs) : 0;
      share = Math.min(1, Math.max(0, delayMs / maxEventLoopDelayMs - 1));
      histogram.reset();
      windowStart = at;
    }
    return share;
  };

  const refuse = (
    reason: Reason,
    request: Parameters<RequestHandler>[0],
    response: Parameters<RequestHandler>[1],
  ) => {
    shed.inc({ reason });
    sendProblem(
      response,
      problem(
        errorTypeBase,
        reason === 'per-client' ? 'rate-limited' : 'overloaded',
        `${details[reason]} Retry after the seconds in Retry-After.`,
        request.path,
      ),
      { 'Retry-After': String(overloadRetryAfterSeconds) },
    );
  };

  /** Counts the request against its client's bound until it is answered; false when the bound is met. */
  const admitClient = (
    request: Parameters<RequestHandler>[0],
    response: Parameters<RequestHandler>[1],
  ): boolean => {
    if (maxRequestsInFlightPerClient <= 0) return true;
    const client = request.ip ?? request.socket.remoteAddress ?? 'unknown';
    const held = inFlightByClient.get(client) ?? 0;
    if (held >= maxRequestsInFlightPerClient) return false;
    inFlightByClient.set(client, held + 1);
    response.once('close', () => {
      const left = (inFlightByClient.get(client) ?? 1) - 1;
      if (left <= 0) inFlightByClient.delete(client);
      else inFlightByClient.set(client, left);
    });
    return true;
  };

  /**
   * A request whose body is still arriving counts as an upload, against a bound of its own (half the
   * in-flight bound), and joins the requests in flight once its body has arrived: uploads that stall, from
   * however many addresses, never take the slots of the requests that have all they need.
   */
  const admitUpload = (request: Parameters<RequestHandler>[0], response: Parameters<RequestHandler>[1]) => {
    if (maxUploadsInFlight > 0 && uploadsInFlight >= maxUploadsInFlight) return false;
    uploadsInFlight++;
    let state: 'uploading' | 'in-flight' | 'done' = 'uploading';
    request.once('end', () => {
      if (state !== 'uploading') return;
      uploadsInFlight--;
      inFlight++;
      state = 'in-flight';
    });
    response.once('close', () => {
      if (state === 'uploading') uploadsInFlight--;
      else if (state === 'in-flight') inFlight--;
      state = 'done';
    });
    return true;
  };

  const middleware: RequestHandler = (request, response, next) => {
    if (neverShedPaths.includes(request.path)) return next();
    const uploading = !request.complete && hasBody(request.headers);
    if (!uploading && maxRequestsInFlight > 0 && inFlight >= maxRequestsInFlight)
      return refuse('in-flight', request, response);
    const toShed = shareToShed();
    if (toShed > 0 && (toShed >= 1 || random() < toShed))
      return refuse('event-loop-delay', request, response);
    if (uploading && !admitUpload(request, response)) return refuse('uploads', request, response);
    if (!admitClient(request, response)) return refuse('per-client', request, response);
    if (!uploading) {
      inFlight++;
      response.once('close', () => inFlight--);
    }
    next();
  };

  return { middleware, stop: () => histogram?.disable() };
};
