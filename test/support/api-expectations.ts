import { expect } from 'vitest';
import type { ProblemDetails } from '../../infrastructure/http/problem-details.ts';
import type { Check, GivenStream } from './api-specification.ts';

// The checks of an API specification's `then` (test/support/api-specification.ts).

/**
 * The answer's status, the headers named (equal to a string, matching a RegExp, absent when null) and the
 * body's fields (as toMatchObject has them).
 */
export const expectResponse =
  (
    status: number,
    { headers = {}, body }: { headers?: Record<string, string | RegExp | null>; body?: object } = {},
  ): Check =>
  ({ response }) => {
    expect(response.status, response.text).toBe(status);
    for (const [name, expected] of Object.entries(headers)) {
      const actual = response.headers.get(name);
      if (expected instanceof RegExp) expect(actual, name).toMatch(expected);
      else expect(actual, name).toBe(expected);
    }
    if (body !== undefined) expect(response.json()).toMatchObject(body);
  };

/** The service's problem types, by name (`not-found`): what `type` of a problem details answer is. */
export const problemType = (name: string): string => `https://orders.example/problems/${name}`;

/**
 * A problem details answer (application/problem+json) of this status, its fields as toMatchObject has them
 * but for `errors`, which must be equal; `type` is given by name (`not-found`).
 */
export const expectProblem =
  (
    status: number,
    {
      type,
      errors,
      ...fields
    }: { type?: string; errors?: ProblemDetails['errors'] } & Record<string, unknown> = {},
  ): Check =>
  (outcome) => {
    expectResponse(status, { headers: { 'content-type': /^application\/problem\+json/ } })(outcome);
    const problem = outcome.response.json<ProblemDetails>();
    expect(problem).toMatchObject({
      status,
      ...(type === undefined ? {} : { type: problemType(type) }),
      ...fields,
    });
    if (errors !== undefined) expect(problem.errors).toEqual(errors);
  };

/** 400 validation-failed, its errors naming these fields and no others (in any order, one or more errors each). */
export const expectInvalidFields =
  (...fields: string[]): Check =>
  (outcome) => {
    expectProblem(400, { type: 'validation-failed' })(outcome);
    const named = new Set(outcome.response.json<ProblemDetails>().errors?.map((error) => error.field));
    expect([...named].sort()).toEqual([...fields].sort());
  };

/** What the request appended to a given stream: these events in this order (each as toMatchObject), no others. */
export const expectNewEvents =
  (stream: GivenStream, expected: Record<string, unknown>[]): Check =>
  ({ newEventsOf }) => {
    const events = newEventsOf(stream);
    expect(events).toHaveLength(expected.length);
    expect(events).toMatchObject(expected);
  };

/** The request appended nothing to any given stream. */
export const expectNoNewEvents =
  (): Check =>
  ({ given, newEventsOf }) => {
    if (given.length === 0) throw new Error('expectNoNewEvents needs a given stream to look at');
    for (const stream of given) expect(newEventsOf(stream), stream.streamId).toEqual([]);
  };
