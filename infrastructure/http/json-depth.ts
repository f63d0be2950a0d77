/** How deep a request's JSON may nest: far beyond any body of the API, far below what recursion survives. */
export const maxJsonDepth = 64;

/**
 * Whether `value` nests objects and arrays deeper than `max` levels. Iterative, so that a hostile body of
 * a hundred thousand brackets is measured without the recursion it is meant to break.
 */
export const nestsDeeperThan = (value: unknown, max = maxJsonDepth): boolean => {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > max) return true;
    for (const nested of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof nested === 'object' && nested !== null) stack.push({ value: nested, depth: depth + 1 });
    }
  }
  return false;
};
