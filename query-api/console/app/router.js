/**
 * Views by the URL's fragment (`/console#/orders/<id>/timeline`): every view has an address to bookmark
 * or share, the page itself is always GET /console, and Back and Forward work.
 *
 * @typedef {{ name: string, params: Record<string, string>, query: URLSearchParams }} Route
 */
import { useEffect, useState } from './vendor/hooks.js';

/** @type {[RegExp, string, string[]][]} */
const routes = [
  [/^\/orders$/, 'orders', []],
  [/^\/orders\/([^/]+)$/, 'order', ['id']],
  [/^\/orders\/([^/]+)\/timeline$/, 'timeline', ['id']],
  [/^\/audit$/, 'audit', []],
  [/^\/webhooks$/, 'webhooks', []],
  [/^\/webhooks\/([^/]+)$/, 'webhook', ['id']],
  [/^\/health$/, 'health', []],
];

/** @param {string} hash @returns {Route} */
export const parseRoute = (hash) => {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?');
  for (const [pattern, name, keys] of routes) {
    const match = pattern.exec(path);
    if (match) {
      const params = Object.fromEntries(
        keys.map((key, index) => [key, decodeURIComponent(match[index + 1] ?? '')]),
      );
      return { name, params, query: new URLSearchParams(search) };
    }
  }
  return {
    name: path === '' || path === '/' ? 'home' : 'not-found',
    params: {},
    query: new URLSearchParams(search),
  };
};

/**
 * A link to a view: `href('/orders', { status: 'pending' })` is `#/orders?status=pending`.
 *
 * @param {string} path
 * @param {Record<string, string | null | undefined>} [query]
 */
export const href = (path, query = {}) => {
  const search = new URLSearchParams(
    Object.entries(query).filter(/** @returns {entry is [string, string]} */ (entry) => !!entry[1]),
  ).toString();
  return `#${path}${search ? `?${search}` : ''}`;
};

/** @param {string} target */
export const navigate = (target) => {
  if (location.hash !== target) location.hash = target;
};

/**
 * Sends an address that names no view on to `target`, in place of it in the history (Back does not come
 * back to the bare address). A view chosen meanwhile (a deep link, a bookmark) is kept: the fragment is
 * read again here, not taken from the render that asked.
 *
 * @param {string} target
 */
export const redirectFromHome = (target) => {
  if (parseRoute(location.hash).name === 'home') location.replace(target);
};

/** The route of the current fragment, following its changes. */
export const useRoute = () => {
  const [{ route }, setRoute] = useState(() => ({ hash: location.hash, route: parseRoute(location.hash) }));
  useEffect(() => {
    const follow = () =>
      setRoute((shown) =>
        shown.hash === location.hash ? shown : { hash: location.hash, route: parseRoute(location.hash) },
      );
    addEventListener('hashchange', follow);
    // The fragment may have changed between the first render and this effect (a link followed while the
    // console was still mounting): its hashchange came before the listener, so it is read once more here.
    follow();
    return () => removeEventListener('hashchange', follow);
  }, []);
  return route;
};
