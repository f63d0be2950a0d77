import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { StringDecoder } from 'node:string_decoder';
import type { NetworkPolicy } from './network-policy.ts';
import {
  forbiddenTargetMessage,
  ipLiteralOf,
  parseWebhookUrl,
  WebhookTargetRefusedError,
  type ResolveHost,
} from './target-check.ts';

export type WebhookRequest = { url: string; headers: Record<string, string>; body: string };

export type WebhookResponse =
  | {
      outcome: 'responded';
      status: number;
      retryAfter: string | null;
      body: string;
      bodyTruncated: boolean;
      durationMs: number;
    }
  | { outcome: 'timeout'; durationMs: number }
  /** The network policy refused the address the host resolved to when connecting. */
  | { outcome: 'refused'; reason: string; durationMs: number }
  | { outcome: 'network-error'; error: string; durationMs: number };

export type WebhookPoster = {
  /** Never rejects: every way a delivery can end is a WebhookResponse. */
  post(request: WebhookRequest): Promise<WebhookResponse>;
  /** Closes the pooled connections. */
  close(): void;
};

const userAgent = 'order-service-webhooks/1';

/** The headers the poster sends with a request, names lower-cased: what an attempt's log keeps of them. */
export const sentHeaders = (request: WebhookRequest): Record<string, string> => ({
  'content-type': 'application/json',
  'user-agent': userAgent,
  ...Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value])),
  'content-length': String(Buffer.byteLength(request.body)),
});

/**
 * Resolves through `resolve`, refuses forbidden addresses, and hands net exactly the addresses it checked:
 * the check and the connection see the same answer, so DNS rebinding after registration gets nowhere.
 */
const checkedLookup =
  (resolve: ResolveHost, policy: NetworkPolicy): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname).then(
      (resolved) => {
        const refusal = policy.allowPrivateNetworks ? null : forbiddenTargetMessage(hostname, resolved);
        if (refusal !== null) return callback(new WebhookTargetRefusedError(refusal), '');
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
        const addresses: LookupAddress[] = resolved
          .map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
          .filter((entry) => family === 0 || entry.family === family);
        const [first] = addresses;
        if (first === undefined) {
          return callback(
            Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }),
            '',
          );
        }
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), ''),
    );
  };

/**
 * An error's message as a delivery's reason: the host name (and an address and port) may stay, since they are
 * how an operator tells which receiver fails and why (`getaddrinfo ENOTFOUND hooks.shop.example`); the URL's
 * path, query and fragment never do, since they may be a credential (a token in the path or the query).
 */
export const deliveryReason = (message: string, target: URL): string => {
  let reason = message.replaceAll(target.href, `${target.origin}/[path not shown]`);
  const { pathname, search, hash } = target;
  for (const part of [
    `${pathname}${search}${hash}`,
    `${pathname}${search}`,
    `${search}${hash}`,
    search,
    hash,
  ]) {
    if (part.length > 1) reason = reason.replaceAll(part, '[path not shown]');
  }
  if (pathname.length > 1) reason = reason.replaceAll(pathname, '[path not shown]');
  return reason;
};

export const createWebhookPoster = (options: {
  policy: NetworkPolicy;
  resolve: ResolveHost;
  timeoutMs?: number;
  maxResponseBytes?: number;
}): WebhookPoster => {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxResponseBytes = options.maxResponseBytes ?? 65_536;
  const lookup = checkedLookup(options.resolve, options.policy);
  const httpAgent = new http.Agent({ keepAlive: true });
  const httpsAgent = new https.Agent({ keepAlive: true });

  const post = (request: WebhookRequest): Promise<WebhookResponse> => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);

    let target: URL;
    try {
      target = parseWebhookUrl(request.url);
      const literal = ipLiteralOf(target);
      // net skips lookup for IP addresses, so literals are judged here, before any connection.
      const refusal =
        literal === null || options.policy.allowPrivateNetworks
          ? null
          : forbiddenTargetMessage(literal, [literal]);
      if (refusal !== null) throw new WebhookTargetRefusedError(refusal);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return Promise.resolve({ outcome: 'refused', reason, durationMs: elapsed() });
    }

    return new Promise<WebhookResponse>((settle) => {
      let settled = false;
      const finish = (response: WebhookResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        settle(response);
      };
      const fail = (error: Error) =>
        finish(
          error instanceof WebhookTargetRefusedError
            ? { outcome: 'refused', reason: deliveryReason(error.message, target), durationMs: elapsed() }
            : {
                outcome: 'network-error',
                error: deliveryReason(error.message, target),
                durationMs: elapsed(),
              },
        );

      let outgoing: http.ClientRequest | undefined;
      const timer = setTimeout(() => {
        finish({ outcome: 'timeout', durationMs: elapsed() });
        outgoing?.destroy();
      }, timeoutMs);

      const isHttps = target.protocol === 'https:';
      try {
        outgoing = (isHttps ? https : http).request(target, {
          method: 'POST',
          agent: isHttps ? httpsAgent : httpAgent,
          lookup,
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': userAgent,
            ...request.headers,
            'Content-Length': String(Buffer.byteLength(request.body)),
          },
        });
      } catch (error) {
        // e.g. a header value with characters HTTP does not allow
        return fail(error instanceof Error ? error : new Error(String(error)));
      }

      outgoing.on('error', fail);
      outgoing.on('response', (incoming) => {
        const decoder = new StringDecoder('utf8');
        let body = '';
        let received = 0;
        const finishResponded = (bodyTruncated: boolean) =>
          finish({
            outcome: 'responded',
            status: incoming.statusCode ?? 0,
            retryAfter: incoming.headers['retry-after'] ?? null,
            body,
            bodyTruncated,
            durationMs: elapsed(),
          });

        incoming.on('data', (chunk: Buffer) => {
          const room = maxResponseBytes - received;
          received += chunk.length;
          if (chunk.length <= room) {
            body += decoder.write(chunk);
            return;
          }
          // An incomplete character at the cut is dropped rather than decoded as U+FFFD.
          body += decoder.write(chunk.subarray(0, room));
          finishResponded(true);
          incoming.destroy();
        });
        incoming.on('end', () => {
          body += decoder.end();
          finishResponded(false);
        });
        incoming.on('error', fail);
        incoming.on('close', () => {
          if (!incoming.complete) fail(new Error('the connection closed before the response was complete'));
        });
      });

      outgoing.end(request.body);
    });
  };

  return {
    post,
    close: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
};
