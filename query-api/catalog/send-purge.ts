/** Sends one purge to one cache: null when it took it, else why not. `stop` cuts it short. */
export type PurgeSender = (url: string, keys: readonly string[], stop: AbortSignal) => Promise<string | null>;

/** Varnish refuses request headers over 8 kB by default (http_req_hdr_len): keys go in lists of this length. */
const maxHeaderLength = 4000;

const inLists = (keys: readonly string[]) => {
  const lists: string[] = [];
  let list = '';
  for (const key of keys) {
    if (list !== '' && list.length + 1 + key.length > maxHeaderLength) {
      lists.push(list);
      list = '';
    }
    list = list === '' ? key : `${list} ${key}`;
  }
  if (list !== '') lists.push(list);
  return lists;
};

/**
 * `PURGE <the URL's path>` with `xkey-purge: <keys>` (space-separated), as deploy/varnish/default.vcl
 * takes it; many keys go in several requests. Any answer but 2xx, or none within `timeoutMs`, is a failure.
 */
export const httpPurgeSender =
  ({ timeoutMs = 5000 }: { timeoutMs?: number } = {}): PurgeSender =>
  async (url, keys, stop) => {
    for (const list of inLists(keys)) {
      try {
        const response = await fetch(url, {
          method: 'PURGE',
          headers: { 'xkey-purge': list },
          redirect: 'manual',
          signal: AbortSignal.any([stop, AbortSignal.timeout(timeoutMs)]),
        });
        await response.body?.cancel();
        if (response.status < 200 || response.status > 299) return `answered ${response.status}`;
      } catch (error) {
        const cause = (error as { cause?: { code?: unknown } }).cause;
        return typeof cause?.code === 'string' ? cause.code : (error as Error).message;
      }
    }
    return null;
  };
