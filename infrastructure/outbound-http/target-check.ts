import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { forbiddenAddressReason, type NetworkPolicy } from './network-policy.ts';

/** Every address of a host name; rejects when the name does not resolve. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export class WebhookTargetRefusedError extends Error {
  readonly kind = 'webhook-target-refused';
}

/** Through the given DNS servers, or the system resolver when none are given (null, absent or empty). */
export const createHostResolver = (options: { dnsServers?: readonly string[] | null }): ResolveHost => {
  const servers = options.dnsServers;
  if (!servers?.length) {
    return async (hostname) => (await dns.lookup(hostname, { all: true })).map((entry) => entry.address);
  }
  // Bounded, so that a silent DNS server fails the request well before a delivery's timeout.
  const resolver = new dns.Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers([...servers]);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = [v4, v6].flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
    if (addresses.length > 0) return addresses;
    throw v4.status === 'rejected' ? v4.reason : new Error(`${hostname} has no A or AAAA records`);
  };
};

const internalNetworks = 'webhooks cannot target internal networks';

const describe = (reason: string) => `${/^(?:[aeio]|un(?!i))/i.test(reason) ? 'an' : 'a'} ${reason} address`;

/** The URL's host as an IP address, when it is one (the WHATWG parser has normalised every notation). */
export const ipLiteralOf = (url: URL): string | null => {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) === 0 ? null : host;
};

/** Why these addresses of `host` must not be reached, or null when all of them are public. */
export const forbiddenTargetMessage = (host: string, addresses: readonly string[]): string | null => {
  for (const address of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason === null) continue;
    return address === host
      ? `${host} is ${describe(reason)}: ${internalNetworks}`
      : `${host} resolves to ${address}, ${describe(reason)}: ${internalNetworks}`;
  }
  return null;
};

/** The checks that need no network: a parseable http(s) URL without credentials. */
export const parseWebhookUrl = (url: string): URL => {
  const parsed = URL.parse(url);
  if (parsed === null) throw new WebhookTargetRefusedError('not a valid absolute URL');
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new WebhookTargetRefusedError(`${parsed.protocol} URLs are not supported: use http or https`);
  }
  if (parsed.port === '0') throw new WebhookTargetRefusedError('port 0 cannot be connected to');
  if (parsed.username !== '' || parsed.password !== '') {
    throw new WebhookTargetRefusedError(
      'the URL must not contain a user name or password: webhooks are authenticated by their signature',
    );
  }
  return parsed;
};

/**
 * Refuses (WebhookTargetRefusedError) a webhook URL that is not http(s), carries credentials, does not
 * resolve, or (unless the policy allows private networks) reaches a non-public address.
 */
export const checkWebhookUrl = async (
  url: string,
  deps: { policy: NetworkPolicy; resolve: ResolveHost },
): Promise<URL> => {
  const parsed = parseWebhookUrl(url);
  const literal = ipLiteralOf(parsed);
  const addresses = literal === null ? await resolveOrRefuse(parsed.hostname, deps.resolve) : [literal];
  if (!deps.policy.allowPrivateNetworks) {
    const refusal = forbiddenTargetMessage(literal ?? parsed.hostname, addresses);
    if (refusal !== null) throw new WebhookTargetRefusedError(refusal);
  }
  return parsed;
};

const resolveOrRefuse = async (hostname: string, resolve: ResolveHost): Promise<string[]> => {
  const addresses = await resolve(hostname).catch(() => []);
  if (addresses.length === 0) throw new WebhookTargetRefusedError(`${hostname} does not resolve`);
  return addresses;
};
