import type { IncomingHttpHeaders } from 'node:http';

/** Whether a request announces a body: a non-zero Content-Length, or Transfer-Encoding. */
export const hasBody = (headers: IncomingHttpHeaders): boolean =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] ?? '0') !== '0';
