import { createHmac, randomBytes } from 'node:crypto';

const prefix = 'whsec_';

/** A new signing secret as the subscriber sees it once: `whsec_` and the base64 of 32 random bytes. */
export const generateWebhookSecret = (): string => `${prefix}${randomBytes(32).toString('base64')}`;

const keyOf = (secret: string): Buffer => Buffer.from(secret.slice(prefix.length), 'base64');

/**
 * The Standard Webhooks `webhook-signature` header: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per
 * secret, space-separated, so a receiver holding either the new or the previous secret accepts it.
 */
export const signatureHeader = (
  secrets: readonly string[],
  message: { id: string; timestamp: number; body: string },
): string =>
  secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', keyOf(secret)).update(`${message.id}.${message.timestamp}.${message.body}`).digest('base64')}`,
    )
    .join(' ');
