import type { Request, RequestHandler, Response as ExpressResponse } from 'express';
import { ApiError } from '../../infrastructure/http/api-error.ts';
import { answerOtherMethods } from '../../infrastructure/http/openapi/allowed-methods.ts';

/** Where the console sends its commands when the process serving it forwards them to the command API. */
export const commandForwardPath = '/console/command';

/**
 * The commands of the public API the console sends, each path with its methods, and nothing else: any other
 * path, or an id of other characters than these, answers 404 to every method, OPTIONS included.
 */
const commandTemplates: readonly { template: string; methods: readonly ('post' | 'patch' | 'delete')[] }[] = [
  ...['confirm', 'ship', 'deliver', 'cancel', 'payments'].map((action) => ({
    template: `/orders/{orderId}/${action}`,
    methods: ['post'] as const,
  })),
  { template: '/webhooks', methods: ['post'] },
  { template: '/webhooks/{subscriptionId}', methods: ['patch', 'delete'] },
  ...['test', 'rotate-secret'].map((action) => ({
    template: `/webhooks/{subscriptionId}/${action}`,
    methods: ['post'] as const,
  })),
  { template: '/webhooks/{subscriptionId}/deliveries/{deliveryId}/retry', methods: ['post'] },
  { template: '/webhooks/{subscriptionId}/deliveries/recover', methods: ['post'] },
];
const commandPaths = commandTemplates.map(({ template, methods }) => ({
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[\\w-]{1,64}')}$`),
  // A command's path answers OPTIONS (204) and any other method (405) with the same Allow as every path.
  answerOtherMethods: answerOtherMethods(methods),
}));
/** The one matcher of the paths below commandForwardPath: what is forwarded, and what OPTIONS and 405 answer for. */
const commandAt = (path: string) => commandPaths.find(({ pattern }) => pattern.test(path));

/** What the command API reads from a command's request, and what the console reads from its answer. */
const requestHeaders = ['authorization', 'content-type', 'accept', 'if-match', 'idempotency-key'];
const responseHeaders = [
  'content-type',
  'etag',
  'last-modified',
  'location',
  'consistency-token',
  'retry-after',
  'www-authenticate',
  'idempotent-replayed',
];

/**
 * The distributed mode's query API serves the console, but the commands are the command API's: opened on
 * the query API directly (no method router in front, as with docker-compose.yml), the console sends its
 * commands to /console/command/<the API's path> (POST, PATCH or DELETE as the API has it), and this forwards each, as it came, to the same
 * path of the command API's public HTTP API: the command API authenticates, authorizes and decides as for
 * any client, and its answer (status, problem details, ETag, Consistency-Token) goes back unchanged.
 * The request id goes along, so both processes log the request under one id; the client's address goes
 * in X-Forwarded-For, which the command API believes only as TRUST_PROXY says.
 * One matcher decides for every method: a command's path answers OPTIONS with 204 and any method it does
 * not take with 405 (the same Allow); any other path below /console/command passes on to the 404.
 */
export const forwardCommand = (commandApiUrl: string, timeoutMs = 15_000): RequestHandler => {
  const base = new URL(commandApiUrl);
  const basePath = base.pathname.replace(/\/$/, '');
  const forward = async (path: string, request: Request, response: ExpressResponse) => {
    const target = new URL(base);
    target.pathname = `${basePath}${path}`;
    target.search = '';
    const headers = new Headers();
    for (const name of requestHeaders) {
      const value = request.get(name);
      if (value !== undefined) headers.set(name, value);
    }
    const requestId = response.getHeader('X-Request-Id');
    if (typeof requestId === 'string') headers.set('x-request-id', requestId);
    const forwardedFor = request.get('x-forwarded-for');
    const client = request.socket.remoteAddress ?? 'unknown';
    headers.set('x-forwarded-for', forwardedFor ? `${forwardedFor}, ${client}` : client);

    let answer: Response;
    try {
      answer = await fetch(target, {
        method: request.method,
        headers,
        ...(request.body === undefined || request.method === 'DELETE'
          ? {}
          : { body: JSON.stringify(request.body) }),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch {
      throw new ApiError('service-unavailable', 'The command API did not answer. Try again shortly.', {
        headers: { 'Retry-After': '1' },
      });
    }
    const body = Buffer.from(await answer.arrayBuffer());
    for (const name of responseHeaders) {
      const value = answer.headers.get(name);
      if (value !== null) response.setHeader(name, value);
    }
    response.status(answer.status).end(body);
  };
  return async (request, response, next) => {
    const path = request.path.startsWith(`${commandForwardPath}/`)
      ? request.path.slice(commandForwardPath.length)
      : null;
    const command = path === null ? undefined : commandAt(path);
    if (path === null || command === undefined) return next();
    let isCommand = false;
    command.answerOtherMethods(request, response, () => (isCommand = true));
    if (isCommand) await forward(path, request, response);
  };
};
