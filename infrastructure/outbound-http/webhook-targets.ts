import type { Logger } from 'pino';
import { warnWhenPrivateNetworksAllowed } from './private-network-warning.ts';
import { checkWebhookUrl, createHostResolver, type ResolveHost } from './target-check.ts';
import type { NetworkPolicy } from './network-policy.ts';

/**
 * Where webhooks may go, as configured (WEBHOOK_ALLOW_PRIVATE_NETWORKS, WEBHOOK_DNS_SERVERS): the policy
 * and resolver the poster checks each connection with, and the check of a URL an admin registers. Made
 * once per process, with the start-up warning while private networks are allowed.
 */
export const webhookTargets = (
  settings: { allowPrivateNetworks: boolean; dnsServers: readonly string[] | null },
  logger: Logger,
): { policy: NetworkPolicy; resolve: ResolveHost; checkUrl: (url: string) => Promise<URL> } => {
  const policy = { allowPrivateNetworks: settings.allowPrivateNetworks };
  warnWhenPrivateNetworksAllowed(policy, logger);
  const resolve = createHostResolver({ dnsServers: settings.dnsServers });
  return { policy, resolve, checkUrl: (url) => checkWebhookUrl(url, { policy, resolve }) };
};
