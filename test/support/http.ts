import type { ProblemDetails } from '../../infrastructure/http/problem-details.ts';

/** Small fetch helpers for tests over real HTTP. */
export const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

export const postForm = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });

/** Reads a problem-details answer, checking its media type. */
export const problemOf = async (response: Response) => {
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/problem+json')) {
    throw new Error(`expected application/problem+json, got ${type}: ${await response.text()}`);
  }
  return (await response.json()) as ProblemDetails;
};
