import type { Logger } from 'pino';

/**
 * One warning line at start while WEBHOOK_ALLOW_PRIVATE_NETWORKS=true lifts the guard against internal
 * targets: a shop running the service for real must see that a forgotten demo setting left it open to SSRF.
 */
export const warnWhenPrivateNetworksAllowed = (
  settings: { allowPrivateNetworks: boolean },
  logger: Logger,
): void => {
  if (!settings.allowPrivateNetworks) return;
  logger.warn(
    { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    'webhooks may reach loopback, private and cloud metadata addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true): for local demos and tests only',
  );
};
