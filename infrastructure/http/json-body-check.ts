/** How deep a request's JSON may nest: far beyond any body of the API, far below what recursion survives. */
export const maxJsonDepth = 64;

/**
 * What is wrong with a parsed JSON body that JSON.parse lets through, or null: nesting deeper than `max`
 * levels, or a string that is not well-formed Unicode (a lone surrogate escape such as "\ud800", which
 * strict consumers of the data, webhook receivers among them, refuse). Iterative, so that a hostile body of
 * a hundred thousand brackets is measured without the recursion it is meant to break.
 */
export const jsonBodyProblem = (value: unknown, max = maxJsonDepth): string | null => {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (!current.isWellFormed()) return 'has a string that is not well-formed Unicode (a lone surrogate)';
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > max) return `nests deeper than ${max} levels`;
    const entries = Array.isArray(current) ? current : Object.entries(current).flat();
    for (const nested of entries) stack.push({ value: nested, depth: depth + 1 });
  }
  return null;
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** body-parser's `verify`: a JSON body whose bytes are not valid UTF-8 is refused, not repaired with U+FFFD. */
export const requireValidUtf8 = (_request: unknown, _response: unknown, body: Buffer, encoding: string) => {
  if (/^utf-?8$/i.test(encoding)) utf8.decode(body);
};

/**
 * body-parser's `verify` for a form body: its bytes valid UTF-8 and every percent-escape decoding to UTF-8
 * (not `%ZZ`, not `%FF`), as a JSON body's bytes and a query string's escapes must. The form parser would
 * otherwise keep `%ZZ` as it is and turn the others into U+FFFD, a value the client never sent.
 */
export const requireValidUtf8Form = (request: unknown, response: unknown, body: Buffer, encoding: string) => {
  requireValidUtf8(request, response, body, encoding);
  decodeURIComponent(body.toString('utf8').replaceAll('+', ' '));
};
