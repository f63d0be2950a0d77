import { connect } from 'node:net';

export type RawResponse = {
  status: number;
  /** Header names lower-cased; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
};

/**
 * Sends `request` exactly as given, bytes and all, over a new TCP connection (not fetch, which would
 * refuse or repair a malformed request before it left), and reads until the server closes the connection
 * or `timeoutMs` passes. Returns every response on the connection, in order (a malformed request may be
 * answered, then the rest of the bytes read as another request).
 */
export const sendRaw = (
  origin: string,
  request: Buffer,
  {
    timeoutMs = 5_000,
    head = false,
    firstResponse = false,
  }: {
    timeoutMs?: number;
    head?: boolean;
    /** Stop reading once a whole response has arrived, rather than when the server closes. */
    firstResponse?: boolean;
  } = {},
): Promise<{ responses: RawResponse[]; timedOut: boolean }> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(origin);
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (firstResponse && parseResponses(Buffer.concat(chunks), head).length > 0) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ responses: parseResponses(Buffer.concat(chunks), head), timedOut });
    });
    // Not half-closed after writing: a server may abort a request whose client ended its side. Requests
    // should say `Connection: close`, so that the server closes once it has answered.
    socket.on('connect', () => socket.write(request));
  });

/** The responses in a byte stream from a server; a trailing fragment that is not a whole response is dropped. */
export const parseResponses = (data: Buffer, firstIsHead = false): RawResponse[] => {
  const responses: RawResponse[] = [];
  let offset = 0;
  while (offset < data.length) {
    const end = data.indexOf('\r\n\r\n', offset);
    if (end === -1) break;
    const [statusLine, ...lines] = data.subarray(offset, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
    if (!Number.isInteger(status)) break;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    let cursor = end + 4;
    let body: Buffer;
    const noBody = (firstIsHead && responses.length === 0) || status === 204 || status === 304;
    if (noBody) {
      body = Buffer.alloc(0);
    } else if (headers['transfer-encoding']?.includes('chunked')) {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = data.indexOf('\r\n', cursor);
        if (lineEnd === -1) return responses;
        const size = Number.parseInt(data.subarray(cursor, lineEnd).toString('latin1'), 16);
        cursor = lineEnd + 2;
        if (size === 0) {
          cursor = data.indexOf('\r\n', cursor) + 2;
          break;
        }
        parts.push(data.subarray(cursor, cursor + size));
        cursor += size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = data.subarray(cursor, cursor + length);
      cursor += length;
    }
    responses.push({ status, headers, body });
    offset = cursor;
  }
  return responses;
};
