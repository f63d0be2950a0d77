import type { OpenAPIRegistry, ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import { neverShedPaths } from '../load-shedding.ts';
import { consistencyTokenFormat } from '../consistency-tokens.ts';
import { problemKinds, type ProblemKind } from '../problem-kinds.ts';

type HeaderSchema = { type: 'string'; pattern?: string; const?: string; format?: string; enum?: string[] };

/** The response headers that matter to a client, documented once. */
const responseHeaders = {
  ETag: {
    description: 'Strong entity tag of this representation, computed from its exact bytes.',
    schema: { type: 'string', pattern: '^"[^"]*"$' },
  },
  'Last-Modified': {
    description: 'When the resource last changed (HTTP-date; one-second granularity).',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: 'Who may store this response, and for how long.',
    schema: { type: 'string' },
  },
  'Surrogate-Key': {
    description:
      'Space-separated keys of what this response shows (`products`, `product-<id>`, `categories`, `category-<id>`, `search`), for a cache in front to tag it with: a change of the catalogue purges the keys whose content changed. A cache strips it before responses leave it.',
    schema: { type: 'string', pattern: '^[a-z0-9-]+( [a-z0-9-]+)*$' },
  },
  Pragma: { description: 'no-cache, for HTTP/1.0 caches.', schema: { type: 'string', const: 'no-cache' } },
  Location: { description: 'The path of the resource this request created.', schema: { type: 'string' } },
  'Consistency-Token': {
    description:
      'Where the log was after this command (its last event’s position), bound to you: `<position>.<MAC>`. Send it back unchanged as a request header on a query, as the same user, to read your own write: the query waits (bounded) until the read models have reached it. Opaque: it works for the caller it was sent to only, and one altered or built is refused (400) whatever it names.',
    schema: { type: 'string', pattern: consistencyTokenFormat.source },
  },
  'Accept-Patch': {
    description: 'The media types PATCH takes here (RFC 5789, section 3.1).',
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  'WWW-Authenticate': {
    description:
      'The bearer challenge: on 401 `Bearer realm="<realm>", error="invalid_token"` (no error attribute when no access token was sent, as on the token endpoints, whose 401 refuses a password or a refresh token); on 403 `Bearer realm="<realm>", error="insufficient_scope"`.',
    schema: { type: 'string', pattern: '^Bearer realm=' },
  },
} satisfies Record<string, { description: string; schema: HeaderSchema }>;

export type ResponseHeader = keyof typeof responseHeaders;

export type ApiResponse = {
  description: string;
  /** The JSON body; none for 202 without body, 204 and 304. */
  body?: z.ZodType;
  /** Default application/json. */
  contentType?: string;
  /** Headers always sent; a string value is the exact value sent. */
  headers?: Partial<Record<ResponseHeader, true | string>>;
};

type ProblemCase = string | { when: string; body: z.ZodType };

export type ApiOperation = {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI form: /orders/{orderId}. */
  path: string;
  operationId: string;
  /** One of the tags the service document declares (openapi/service-document.ts). */
  tag: string;
  summary: string;
  description?: string;
  /**
   * Who may call it, as the permission table says (a bearer token is then required); absent for public
   * operations. "(own only)" after a role: only on the caller's own resources.
   */
  access?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  body?: { schema: z.ZodType; media?: (keyof typeof mediaTypes)[]; required?: boolean };
  responses: Record<number, ApiResponse>;
  /** Problems the operation answers beyond those every operation of its kind may (see problemsOf). */
  problems?: Partial<Record<ProblemKind, ProblemCase>>;
};

export type ProblemBodies = {
  /** Any problem: type, title, status, detail, instance and extension members. */
  problem: z.ZodType;
  /** 400: a problem whose errors member lists every field that failed. */
  validation: z.ZodType;
};

const mediaTypes = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  'merge-patch': 'application/merge-patch+json',
} as const;

/** The problems every operation of this kind may answer, beside the ones it lists. */
const problemsOf = (operation: ApiOperation): Partial<Record<ProblemKind, ProblemCase>> => {
  const invalid = [
    operation.body &&
      'the body is malformed (not JSON, nested deeper than 64 levels, or not decodable as its Content-Encoding says) or a field of it is invalid',
    (operation.query || operation.headers) && 'a query parameter or header is invalid',
    'the path or query string has a percent-escape that does not decode',
  ].filter(Boolean);
  const shed = !neverShedPaths.includes(operation.path);
  return {
    'validation-failed': `${invalid.join(', or ')}; errors lists each field (100 at most).`.replace(
      /^./,
      (c) => c.toUpperCase(),
    ),
    ...(operation.body
      ? {
          'request-timeout':
            'The body did not arrive whole within HTTP_BODY_TIMEOUT_MS (10 s by default); the connection is closed.',
          'payload-too-large': 'The body exceeds 100 kB.',
          'unsupported-media-type': `The body is not ${(operation.body.media ?? ['json']).map((m) => mediaTypes[m]).join(' or ')}.`,
        }
      : {}),
    ...(operation.method === 'get'
      ? {
          'precondition-failed':
            'If-Match names another version, or the resource changed after If-Unmodified-Since.',
        }
      : {}),
    ...(operation.access
      ? {
          unauthorized:
            'The bearer token is missing, invalid or expired, or its user no longer exists or is disabled.',
          forbidden: 'None of the roles the caller holds (and its token names) may do this.',
        }
      : {}),
    ...(shed
      ? {
          'rate-limited':
            'This client address has too many requests under way at once (HTTP_MAX_REQUESTS_IN_FLIGHT_PER_CLIENT): refused before any work. Retry after Retry-After.',
        }
      : {}),
    ...operation.problems,
    internal: 'The server failed; nothing is disclosed about why.',
    ...(shed
      ? {
          overloaded:
            'The service is shedding load (too many requests under way, or running behind): refused before any work. Retry after Retry-After.',
        }
      : {}),
    'storage-unavailable':
      'The disk under the service is full, read-only or failing: the request was not completed. Retry after Retry-After.',
  };
};

const headersObject = (headers: Partial<Record<ResponseHeader, true | string>>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => {
      const header = responseHeaders[name as ResponseHeader];
      const schema: HeaderSchema =
        typeof value === 'string' ? { type: 'string', const: value } : header.schema;
      return [name, { description: header.description, required: true, schema }];
    }),
  );

/**
 * The answers that depend on the client or the moment (infrastructure/http/cache-control.ts, rule 0): never
 * stored. On a GET of a private path (/auth/, /users/me, /orders) with rule 2's `private, no-cache` before
 * it; every other method is no-store alone (rule 1).
 */
const momentaryCacheControl = (method: ApiOperation['method']) => {
  const schema: HeaderSchema =
    method === 'get'
      ? { type: 'string', enum: ['no-store', 'private, no-cache, no-store'] }
      : { type: 'string', const: 'no-store' };
  return {
    description: 'Never stored: this answer is for this client at this moment.',
    required: true,
    schema,
  };
};

const problemHeaders = (
  status: number,
  method: ApiOperation['method'],
): Partial<Record<ResponseHeader, true | string>> => ({
  ...(status === 415 && method === 'patch' ? { 'Accept-Patch': true } : {}),
  ...(status === 401 || status === 403 ? { 'WWW-Authenticate': true } : {}),
  ...(status === 429 || status === 503 ? { 'Retry-After': true } : {}),
  ...(status >= 500 ? { 'Cache-Control': 'no-store' } : {}),
});

const momentaryStatuses = new Set([408, 413, 429]);

/** Groups the problem kinds by status: one documented response per status, naming each kind and when. */
const problemResponses = (
  cases: Partial<Record<ProblemKind, ProblemCase>>,
  bodies: ProblemBodies,
  errorTypeBase: string,
  method: ApiOperation['method'],
): Record<number, ResponseConfig> => {
  const byStatus = new Map<number, { lines: string[]; body: z.ZodType }>();
  for (const [kind, problemCase] of Object.entries(cases) as [ProblemKind, ProblemCase][]) {
    const { status, title } = problemKinds[kind];
    const when = typeof problemCase === 'string' ? problemCase : problemCase.when;
    const entry = byStatus.get(status) ?? {
      lines: [],
      body: status === 400 ? bodies.validation : bodies.problem,
    };
    if (typeof problemCase !== 'string') entry.body = problemCase.body;
    entry.lines.push(`\`${errorTypeBase}/${kind}\` (${title}): ${when}`);
    byStatus.set(status, entry);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, { lines, body }]) => [
      status,
      {
        description: lines.join('\n\n'),
        headers: {
          ...headersObject(problemHeaders(status, method)),
          ...(momentaryStatuses.has(status) ? { 'Cache-Control': momentaryCacheControl(method) } : {}),
        },
        content: { 'application/problem+json': { schema: body } },
      },
    ]),
  );
};

const successResponse = ({ description, body, contentType, headers = {} }: ApiResponse): ResponseConfig => ({
  description,
  headers: headersObject(headers),
  ...(body ? { content: { [contentType ?? 'application/json']: { schema: body } } } : {}),
});

/** What a 304 repeats of the 200 (representation.ts): its validators and caching headers, as they are. */
const repeatedBy304: readonly ResponseHeader[] = ['ETag', 'Last-Modified', 'Cache-Control', 'Surrogate-Key'];

/** The 304 as it is sent: with every header of the 200 that a 304 repeats, beside those it names. */
const withRepeatedHeaders = (responses: ApiOperation['responses']): ApiOperation['responses'] => {
  const [ok, notModified] = [responses[200], responses[304]];
  if (!ok || !notModified) return responses;
  const repeated = Object.fromEntries(
    Object.entries(ok.headers ?? {}).filter(([name]) => repeatedBy304.includes(name as ResponseHeader)),
  );
  return { ...responses, 304: { ...notModified, headers: { ...repeated, ...notModified.headers } } };
};

/** Adds an operation to the registry, with every response it can give. */
export const registerOperation = (
  registry: OpenAPIRegistry,
  operation: ApiOperation,
  { problems, errorTypeBase }: { problems: ProblemBodies; errorTypeBase: string },
): void => {
  const { body } = operation;
  const request: RouteConfig['request'] = {
    ...(operation.params ? { params: operation.params } : {}),
    ...(operation.query ? { query: operation.query } : {}),
    ...(operation.headers ? { headers: operation.headers } : {}),
    ...(body
      ? {
          body: {
            required: body.required ?? true,
            content: Object.fromEntries(
              (body.media ?? ['json']).map((media) => [mediaTypes[media], { schema: body.schema }]),
            ),
          },
        }
      : {}),
  };
  const description = [operation.description, operation.access && `**Who:** ${operation.access}.`]
    .filter(Boolean)
    .join('\n\n');
  registry.registerPath({
    method: operation.method,
    path: operation.path,
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    ...(description ? { description } : {}),
    security: operation.access ? [{ bearerAuth: [] }] : [],
    request,
    responses: {
      ...Object.fromEntries(
        Object.entries(withRepeatedHeaders(operation.responses)).map(([status, response]) => [
          status,
          successResponse(response),
        ]),
      ),
      ...problemResponses(problemsOf(operation), problems, errorTypeBase, operation.method),
    },
  });
};
