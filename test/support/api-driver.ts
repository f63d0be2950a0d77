import { createServer, request as sendRequest, type RequestListener, type Server } from 'node:http';
import { duplexPair } from 'node:stream';
import { checkAgainstDocument } from './contract-fetch.ts';
import { testTarget } from './test-service.ts';

export type ApiRequest = {
  method?: string;
  /** The path and query, as a link in an answer gives them: `/orders?page=2`. */
  path: string;
  headers?: Record<string, string>;
  /** Sent as JSON (Content-Type application/json unless the headers name one); a string as it is. */
  body?: unknown;
};

export type ApiResponse = {
  status: number;
  headers: Headers;
  text: string;
  json<T = unknown>(): T;
};

/** How HTTP suites send requests to the service: the same suite, in-process or over a socket. */
export type ApiDriver = {
  kind: 'in-process' | 'url';
  request(request: ApiRequest): Promise<ApiResponse>;
};

/** The service as a driver reaches it; a getter each, since a restart changes both. */
export type DrivenService = { readonly url: string; readonly handler?: RequestListener | undefined };

/**
 * The URL driver over real sockets when the service runs elsewhere (TEST_TARGET=distributed) or when
 * API_DRIVER=url asks for it; the in-process driver otherwise.
 */
export const apiDriverKind = (): ApiDriver['kind'] => {
  const asked = process.env['API_DRIVER'] || undefined;
  if (asked !== undefined && asked !== 'url' && asked !== 'in-process')
    throw new Error(`API_DRIVER is ${asked}: url or in-process`);
  return testTarget() === 'distributed' || asked === 'url' ? 'url' : 'in-process';
};

export const apiDriverFor = (service: DrivenService): ApiDriver =>
  apiDriverKind() === 'url' ? urlDriver(service) : inProcessDriver(service);

/** fetch against the service's address: the contract-checking fetch of the HTTP suites' setup file. */
export const urlDriver = (service: DrivenService): ApiDriver => ({
  kind: 'url',
  async request(request) {
    const response = await fetch(`${service.url}${request.path}`, {
      method: request.method ?? 'GET',
      ...encoded(request),
    });
    return answer(response.status, response.headers, await response.text());
  },
});

/**
 * The service's own request handler behind a Node HTTP server that listens nowhere: each request is a
 * connection handed to it in memory (a stream.duplexPair), read and answered by Node's own HTTP parser and
 * client as over a socket, without a port or the kernel. The server's connection limits (listen.ts) are not
 * in the way. Answers are checked against the OpenAPI document as the URL driver's are.
 */
export const inProcessDriver = (service: DrivenService): ApiDriver => ({
  kind: 'in-process',
  async request(request) {
    if (!service.handler) throw new Error('this service has no in-process handler: use API_DRIVER=url');
    const url = new URL(request.path, service.url);
    const method = request.method ?? 'GET';
    const response = await exchange(serverOf(service.handler), url, method, encoded(request));
    checkAgainstDocument({
      method,
      url: url.href,
      status: response.status,
      headers: response.headers,
      body: response.text,
    });
    return response;
  },
});

const servers = new WeakMap<RequestListener, Server>();
/** One server per handler (a restart brings a new one), as the port's is made (listen.ts). */
const serverOf = (handler: RequestListener): Server => {
  let server = servers.get(handler);
  if (!server) {
    server = createServer({ requireHostHeader: false }, handler);
    servers.set(handler, server);
  }
  return server;
};

/** One request on a connection of its own, as fetch without keep-alive would send it. */
const exchange = (
  server: Server,
  url: URL,
  method: string,
  { headers, body }: { headers: Record<string, string>; body?: string },
) =>
  new Promise<ApiResponse>((resolve, reject) => {
    const [clientEnd, serverEnd] = duplexPair();
    // Who the app sees calling (request.ip, the per-client limits): the loopback, as over the port.
    Object.assign(serverEnd, { remoteAddress: '127.0.0.1', remoteFamily: 'IPv4', remotePort: 0 });
    server.emit('connection', serverEnd);
    const outgoing = sendRequest({
      createConnection: () => clientEnd,
      method,
      path: url.pathname + url.search,
      // What fetch sends unless told otherwise, so that both drivers ask the same of the service.
      headers: {
        host: url.host,
        accept: '*/*',
        ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
        ...headers,
      },
    });
    outgoing.once('error', reject);
    outgoing.once('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.once('error', reject);
      incoming.once('end', () =>
        resolve(
          answer(incoming.statusCode!, headersOf(incoming.rawHeaders), Buffer.concat(chunks).toString()),
        ),
      );
    });
    outgoing.end(body);
  });

const encoded = ({ headers = {}, body }: ApiRequest): { headers: Record<string, string>; body?: string } => {
  if (body === undefined) return { headers };
  const typed = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  return {
    headers: typed ? headers : { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
};

const answer = (status: number, headers: Headers, text: string): ApiResponse => ({
  status,
  headers,
  text,
  json: <T>() => JSON.parse(text) as T,
});

/** Node's raw header lines (name, value, name, value...) as fetch gives them. */
const headersOf = (rawHeaders: string[]): Headers => {
  const headers = new Headers();
  for (let index = 0; index < rawHeaders.length; index += 2)
    headers.append(rawHeaders[index]!, rawHeaders[index + 1]!);
  return headers;
};
