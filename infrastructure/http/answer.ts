import type { Response } from 'express';

/**
 * An answer as a value: what a handler returns instead of writing it, so that whoever runs the handler can
 * keep it before it goes out (an idempotent request's answer, command-api/idempotency/idempotent.ts).
 */
export type Answer = {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
  /** What is kept of the body instead, when it carries personal data: the same text with it sealed. */
  kept?: string;
};

export const sendAnswer = (response: Response, { status, headers, body }: Answer): void => {
  // Always framed by its length, whatever the request's version asked for.
  response
    .status(status)
    .set(headers)
    .set('Content-Length', String(Buffer.byteLength(body)))
    .end(body);
};
