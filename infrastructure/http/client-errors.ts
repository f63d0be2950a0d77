import type { Socket } from 'node:net';
import { problem } from './problem-details.ts';
import type { ProblemKind } from './problem-kinds.ts';

/** A method token and the space after it (RFC 9110, section 9; RFC 9112, section 3). */
const methodToken = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ /;

/** How Node's HTTP parser says a request cannot be read, and what the client is told. */
const kindOf = (code: string | undefined, rawPacket: unknown): ProblemKind => {
  switch (code) {
    // A method Node's parser does not know (FOO, or get in lower case): 501, as RFC 9110 (section 9.1) asks
    // of a method the server does not recognize. Bytes that are no method at all (a TLS handshake on the
    // plain port, binary noise) stay a malformed request: 400.
    case 'HPE_INVALID_METHOD':
      return Buffer.isBuffer(rawPacket) && methodToken.test(rawPacket.subarray(0, 64).toString('latin1'))
        ? 'not-implemented'
        : 'validation-failed';
    case 'HPE_HEADER_OVERFLOW':
      return 'header-fields-too-large';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 'payload-too-large';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'request-timeout';
    default:
      return 'validation-failed';
  }
};

const details: Partial<Record<ProblemKind, string>> = {
  'header-fields-too-large': 'The request line and headers are too large.',
  'payload-too-large': 'The request body is too large.',
  'request-timeout': 'The request did not arrive in time.',
  'validation-failed': 'The request is not well-formed HTTP/1.1.',
  'not-implemented':
    'The request method is not one the service knows (it knows GET, HEAD, POST, PATCH, DELETE and OPTIONS).',
};

/** A whole problem-details response as bytes for a socket, closing the connection. */
export const rawProblem = (
  errorTypeBase: string,
  kind: ProblemKind,
  detail: string,
  headers: Record<string, string> = {},
): string => {
  // No instance: the request's path may be what could not be read.
  const { instance: _unread, ...answer } = problem(errorTypeBase, kind, detail, '');
  const body = JSON.stringify(answer);
  return (
    `HTTP/1.1 ${answer.status} ${answer.title}\r\n` +
    'Content-Type: application/problem+json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Cache-Control: no-store\r\n' +
    'X-Content-Type-Options: nosniff\r\n' +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    'Connection: close\r\n\r\n' +
    body
  );
};

/**
 * Node answers a request its parser cannot read (a malformed request line or header, a bad chunk, obsolete
 * header folding) with a bare status line. This answers it as every other error: problem details, with no
 * caching and the connection closed, since nothing after the error can be trusted to be a request.
 */
export const answerClientError =
  (errorTypeBase: string) =>
  (error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const kind = kindOf(error.code, error.rawPacket);
    socket.end(rawProblem(errorTypeBase, kind, details[kind]!));
  };
