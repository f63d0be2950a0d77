/**
 * What changed between two states of a resource (an order after event N-1 and after event N): each
 * changed leaf, by its path (`status`, `payments[0]`, `shippingAddress.city`). A value that appears or
 * disappears whole (a new payment) is one change, not one per field inside it.
 *
 * @typedef {{ path: string, kind: 'added' | 'removed' | 'changed', before?: unknown, after?: unknown }} Change
 */

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** @param {string} path @param {string | number} key */
const join = (path, key) =>
  typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;

/**
 * @param {unknown} before
 * @param {unknown} after
 * @param {string} [path]
 * @returns {Change[]}
 */
export const diffStates = (before, after, path = '') => {
  if (Object.is(before, after)) return [];
  if (before === undefined) return [{ path, kind: 'added', after }];
  if (after === undefined) return [{ path, kind: 'removed', before }];
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length);
    return Array.from({ length }, (_, index) =>
      diffStates(before[index], after[index], join(path, index)),
    ).flat();
  }
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => diffStates(before[key], after[key], join(path, key)));
  }
  return [{ path, kind: 'changed', before, after }];
};

/**
 * The paths a change touches, with every path above it: `payments[0].amount` marks `payments[0]` and
 * `payments` too, so that a view of the whole state can highlight the way down to what changed.
 *
 * @param {Change[]} changes
 * @returns {Set<string>}
 */
export const changedPaths = (changes) => {
  const paths = new Set();
  for (const { path } of changes) {
    let current = path;
    while (current !== '') {
      paths.add(current);
      const cut = Math.max(current.lastIndexOf('.'), current.lastIndexOf('['));
      current = cut < 0 ? '' : current.slice(0, cut);
    }
  }
  return paths;
};

/** The value personal data is replaced with when it is erased (the privacy issue). */
export const erasedValue = '[erased]';

/**
 * Whether any string in a value is exactly the erased marker.
 *
 * @param {unknown} value
 * @returns {boolean}
 */
export const containsErased = (value) =>
  value === erasedValue ||
  (Array.isArray(value) && value.some(containsErased)) ||
  (isObject(value) && Object.values(value).some(containsErased));
