import { METHODS } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRaw, type RawResponse } from '../support/raw-http.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/**
 * Requests as a stranger or an attacker sends them, over raw sockets so that they reach the server as sent:
 * malformed request lines, methods and paths in other case, escapes that do not decode, folded and
 * duplicated headers, bodies that are not what their headers say. Every operation of the OpenAPI document
 * is a target, and in the distributed mode every API process directly (no router in front).
 *
 * What must hold for each: no 5xx (but 501 to a method the service does not know, such as FOO or get, as
 * RFC 9110 asks), no hang, every 4xx is problem details; and afterwards nothing changed:
 * the same log head, the same addresses and webhook subscriptions. The requests are built so that none is
 * a valid command (each write carries a field no operation knows, or a body that does not parse), so any
 * change is a defect. Seeded: FUZZ_SEED reproduces a run, FUZZ_RUNS sets its length.
 */
const seed = Number(process.env['FUZZ_SEED'] ?? 20_261_125);
const numRuns = Number(process.env['FUZZ_RUNS'] ?? 400);

type Operation = { method: string; template: string; params: string[]; query: string[] };

const oddSegments = [
  '%ZZ',
  '%E0%A4%A',
  '%C0%AF',
  '%00',
  '%2F',
  '..',
  '.',
  '%2e%2e',
  '😀',
  'a'.repeat(300),
  '-1',
  '1e400',
  '99999999999999999999999',
  '00000000-0000-0000-0000-000000000000',
  '0B9C0B9C-0000-4000-8000-000000000000',
  '1001',
  '',
  ' ',
  '%20',
  '<script>',
  "' OR 1=1 --",
];

const oddQueryValues = [
  '',
  '%',
  '%ZZ',
  '%E0%A4%A',
  '0',
  '-1',
  '1.5',
  '99999999999999999999999999999999999999999',
  '9223372036854775808',
  '18446744073709551616',
  'pending',
  'PENDING',
  'NaN',
  'Infinity',
  '[]',
  '{}',
  'a'.repeat(600),
  '%00',
];

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'get', 'Post', 'TRACE', 'FOO'];

/** Bodies that no operation accepts: each carries an unknown field, or is not what its type says. */
const hostileBodies = fc.oneof(
  fc
    .dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 })
    .map((fields) => JSON.stringify({ ...fields, '\u0000unknown': true })),
  fc.constantFrom(
    '{',
    '{"items":',
    'null',
    '[]',
    '"text"',
    '12',
    `{"items":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
    '{"items":[{"productId":"1001","quantity":1e400}],"shippingAddressId":"x","zz":1}',
    '{"__proto__":{"admin":true},"zz":1}',
    '{"constructor":{"prototype":{"x":1}},"zz":1}',
    'grant_type=password&username=a&password=b&zz=1',
    'a=%ZZ&b=%E0%A4%A',
    '\u00ff\u00fe\u00fd',
  ),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
);

const encodings = ['gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip'] as const;
const encode = (encoding: string, body: Buffer, honest: boolean): Buffer => {
  if (!honest) return body;
  if (encoding === 'gzip') return gzipSync(body);
  if (encoding === 'deflate') return deflateSync(body);
  if (encoding === 'br') return brotliCompressSync(body);
  return body;
};

describe('raw-socket fuzzing of every route: no 5xx, every 4xx problem details, nothing changed', () => {
  let service: TestService;
  let token: string;
  let operations: Operation[];
  let stateOf: () => Promise<string>;

  beforeAll(async () => {
    service = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    // Every role at once, so that requests get past authorization to everything behind it.
    const everyone = await service.signIn(['customer', 'staff', 'auditor', 'admin']);
    token = everyone.tokens.access_token;
    const auth = everyone.auth;
    // Something to change, were anything to change it: an order, an address, a subscription.
    const address = await fetch(`${service.url}/users/me/addresses`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ street: '1 Fuzz Lane', city: 'Lyon', postalCode: '69001', country: 'FR' }),
    });
    const addressId = ((await address.json()) as { id: string }).id;
    expect(
      (
        await fetch(`${service.url}/orders`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ items: [{ productId: '1001', quantity: 1 }], shippingAddressId: addressId }),
        })
      ).status,
    ).toBe(201);
    const subscribed = await fetch(`${service.url}/webhooks`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks', events: ['order.created'] }),
    });
    expect(subscribed.status).toBe(201);
    // The subscriptions are read with this token: in the distributed mode their read model may trail the
    // command API's 201, and the state before the run must already hold the subscription.
    const subscribedToken = subscribed.headers.get('consistency-token')!;
    expect(subscribedToken).toMatch(/^\d+\.[\w-]{22}$/);

    const document = (await (await fetch(`${service.url}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { parameters?: { in: string; name: string }[]; requestBody?: unknown }>
      >;
    };
    const all = Object.entries(document.paths).flatMap(([template, byMethod]) =>
      Object.entries(byMethod).map(([method, operation]) => ({
        method: method.toUpperCase(),
        template,
        params: (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
        query: (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        takesInput: operation.requestBody !== undefined,
      })),
    );
    // A write that takes no input at all (DELETE /users/me/sessions) is a valid request however it is
    // sent: with a token and an unknown query parameter it does what it says, so it cannot be part of a
    // run that must change nothing. Its refusals are tested where it is.
    const inputless = all.filter(
      (operation) =>
        !['GET', 'HEAD', 'OPTIONS'].includes(operation.method) &&
        operation.params.length === 0 &&
        !operation.takesInput,
    );
    process.stdout.write(
      `  [fuzz] left out, as writes that take no input: ${inputless.map((operation) => `${operation.method} ${operation.template}`).join(', ') || 'none'}\n`,
    );
    operations = all.filter((operation) => !inputless.includes(operation));

    /** The log from its start (its head and length), the caller's addresses, the subscriptions. */
    stateOf = async () => {
      const positions: string[] = [];
      let next: string | null = '/audit/events?limit=1000';
      while (next) {
        const page = (await (await fetch(`${service.url}${next}`, { headers: auth })).json()) as {
          data: { position: string }[];
          links: { next: string | null };
        };
        positions.push(...page.data.map((event) => event.position));
        next = page.links.next;
      }
      const me = await (await fetch(`${service.url}/users/me`, { headers: auth })).text();
      const hooks = await (
        await fetch(`${service.url}/webhooks`, {
          headers: { ...auth, 'Consistency-Token': subscribedToken },
        })
      ).text();
      return JSON.stringify({ events: positions.length, head: positions.at(-1), me, hooks });
    };
  });
  afterAll(() => service.stop());

  it(`${numRuns} hostile requests (seed ${seed})`, async () => {
    const before = await stateOf();
    const origins = service.apiOrigins();
    const seen = new Map<number, number>();

    const request = fc.record({
      origin: fc.constantFrom(...origins),
      operation: fc.constantFrom(...operations),
      method: fc.option(fc.constantFrom(...methods), { nil: undefined, freq: 3 }),
      segments: fc.array(fc.constantFrom(...oddSegments), { minLength: 4, maxLength: 4 }),
      pathTwist: fc.constantFrom('none', 'none', 'upper', 'trailing-slash', 'double-slash', 'suffix', 'dot'),
      query: fc.array(
        fc.tuple(
          fc.constantFrom(
            'page',
            'perPage',
            'cursor',
            'status',
            'after',
            'before',
            'limit',
            'revision',
            'q',
            'x',
          ),
          fc.constantFrom(...oddQueryValues),
        ),
        { maxLength: 3 },
      ),
      auth: fc.constantFrom('none', 'valid', 'valid', 'garbage', 'basic', 'empty-bearer'),
      contentType: fc.constantFrom(
        undefined,
        'application/json',
        'application/json',
        'application/json; charset=latin1',
        'application/x-www-form-urlencoded',
        'application/merge-patch+json',
        'text/plain',
        'multipart/form-data; boundary=x',
      ),
      encoding: fc.option(fc.constantFrom(...encodings), { nil: undefined, freq: 3 }),
      honestEncoding: fc.boolean(),
      body: fc.option(hostileBodies, { nil: undefined, freq: 4 }),
      extraHeaders: fc.array(
        fc.constantFrom(
          'If-Match: "x"',
          'If-Match: *',
          'If-None-Match: *',
          'If-None-Match: W/"x", "y"',
          'If-Modified-Since: not a date',
          'If-Unmodified-Since: Tue, 01 Jan 1980 00:00:00 GMT',
          'Idempotency-Key: fuzz',
          'Idempotency-Key: ' + 'k'.repeat(300),
          'Consistency-Token: 99999999999999999999999999999999999999999',
          'Consistency-Token: -1',
          'Consistency-Token: 1.AAAAAAAAAAAAAAAAAAAAAA',
          'X-Request-Id: ' + 'r'.repeat(500),
          'X-Forwarded-For: 10.0.0.1, ::1, garbage',
          'Accept: application/xml',
          'Accept-Encoding: gzip;q=0',
          'Range: bytes=0-1',
          'Expect: 100-continue',
          'X-Folded: first\r\n second',
          'Content-Length: 0',
          'Transfer-Encoding: chunked',
          'Host: evil.example',
          'Authorization: Bearer a.b.c',
        ),
        { maxLength: 3 },
      ),
    });

    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        let path = r.operation.template;
        r.operation.params.forEach((name, index) => {
          path = path.replace(`{${name}}`, r.segments[index] ?? 'x');
        });
        path =
          r.pathTwist === 'upper'
            ? path.toUpperCase()
            : r.pathTwist === 'trailing-slash'
              ? `${path}/`
              : r.pathTwist === 'double-slash'
                ? `/${path}`
                : r.pathTwist === 'suffix'
                  ? `${path}/%ZZ/..`
                  : r.pathTwist === 'dot'
                    ? path.replace(/\/([^/]*)$/, '/./$1')
                    : path;
        const query = r.query.map(([name, value]) => `${name}=${value}`).join('&');
        const target = query ? `${path}?${query}` : path;
        const method = r.method ?? r.operation.method;
        const raw = r.body === undefined ? Buffer.alloc(0) : Buffer.from(r.body, 'latin1');
        const body = r.encoding ? encode(r.encoding, raw, r.honestEncoding) : raw;
        const authorization = {
          none: [],
          valid: [`Authorization: Bearer ${token}`],
          garbage: ['Authorization: Bearer !!!'],
          basic: ['Authorization: Basic YTpi'],
          'empty-bearer': ['Authorization: Bearer '],
        }[r.auth];
        const chunked = r.extraHeaders.includes('Transfer-Encoding: chunked');
        const head = [
          `${method} ${target} HTTP/1.1`,
          `Host: ${new URL(r.origin).host}`,
          ...authorization,
          ...(r.contentType ? [`Content-Type: ${r.contentType}`] : []),
          ...(r.encoding ? [`Content-Encoding: ${r.encoding}`] : []),
          ...r.extraHeaders.filter(
            (h) => !h.startsWith('Content-Length') && !h.startsWith('Transfer-Encoding'),
          ),
          ...(chunked ? ['Transfer-Encoding: chunked'] : [`Content-Length: ${body.length}`]),
          'Connection: close',
        ].join('\r\n');
        const payload = chunked
          ? Buffer.concat([
              Buffer.from(`${body.length.toString(16)}\r\n`),
              body,
              Buffer.from('\r\n0\r\n\r\n'),
            ])
          : body;
        const bytes = Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), payload]);

        const { responses, timedOut } = await sendRaw(r.origin, bytes, { head: method === 'HEAD' });
        const what = `${method} ${target.slice(0, 120)} -> `;
        expect(timedOut, `${what}no answer within 5 s`).toBe(false);
        expect(responses.length, `${what}no response`).toBeGreaterThan(0);
        for (const response of responses) {
          seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
          const shown = `${what}${response.status} ${response.body.toString().slice(0, 300)}`;
          if (METHODS.includes(method)) expect(response.status, shown).toBeLessThan(500);
          else expect(response.status, shown).toBe(501);
          if (response.status >= 400) expectProblemDetails(response, what, method === 'HEAD');
        }
      }),
      { seed, numRuns, endOnFailure: true },
    );

    process.stdout.write(
      `  [fuzz] seed ${seed}, ${numRuns} requests over ${operations.length} operations and ${origins.length} API process(es); statuses ${JSON.stringify(Object.fromEntries([...seen].sort(([a], [b]) => a - b)))}\n`,
    );
    expect(await stateOf()).toBe(before);
  });
});

const expectProblemDetails = (response: RawResponse, what: string, head: boolean) => {
  const type = response.headers['content-type'] ?? '';
  expect(type, `${what}${response.status} with ${type || 'no content type'}`).toMatch(
    /^application\/problem\+json/,
  );
  if (head) return;
  const body = JSON.parse(response.body.toString('utf8')) as { type?: unknown; status?: unknown };
  expect(typeof body.type, `${what}${response.status} problem without type`).toBe('string');
  expect(body.status).toBe(response.status);
};
