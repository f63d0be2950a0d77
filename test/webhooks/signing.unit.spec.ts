import { randomUUID } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createSecretCipher } from '../../infrastructure/crypto/secret-cipher.ts';
import {
  generateWebhookSecret,
  signatureHeader,
} from '../../infrastructure/outbound-http/standard-webhooks.ts';

const message = () => ({
  id: randomUUID(),
  timestamp: Math.floor(Date.now() / 1000),
  body: JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: {} }),
});

const headersOf = (secrets: string[], signed: ReturnType<typeof message>) => ({
  'webhook-id': signed.id,
  'webhook-timestamp': String(signed.timestamp),
  'webhook-signature': signatureHeader(secrets, signed),
});

describe('Standard Webhooks signatures', () => {
  it('are whsec_ secrets of 32 random bytes, different each time', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('verify with the standardwebhooks receiver library, and fail with another secret or another body', () => {
    const secret = generateWebhookSecret();
    const signed = message();
    expect(new Webhook(secret).verify(signed.body, headersOf([secret], signed))).toEqual(
      JSON.parse(signed.body),
    );
    expect(() =>
      new Webhook(generateWebhookSecret()).verify(signed.body, headersOf([secret], signed)),
    ).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(`${signed.body} `, headersOf([secret], signed))).toThrow(
      WebhookVerificationError,
    );
  });

  it('carry one signature per secret, so receivers holding the new or the previous secret both verify', () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const signed = message();
    const headers = headersOf([current, previous], signed);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(signed.body, headers)).toBeTruthy();
    expect(new Webhook(previous).verify(signed.body, headers)).toBeTruthy();
  });
});

describe('sealed webhook secrets', () => {
  const cipher = createSecretCipher(Buffer.alloc(32, 7));
  const subscriptionId = randomUUID();

  it('open to the secret sealed, and never contain it in the clear', () => {
    const secret = generateWebhookSecret();
    const sealed = cipher.seal(secret, subscriptionId);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(cipher.open(sealed, subscriptionId)).toBe(secret);
    expect(cipher.seal(secret, subscriptionId)).not.toBe(sealed);
  });

  it('do not open for another subscription, under another key, or once altered', () => {
    const sealed = cipher.seal(generateWebhookSecret(), subscriptionId);
    expect(() => cipher.open(sealed, randomUUID())).toThrow();
    expect(() => createSecretCipher(Buffer.alloc(32, 8)).open(sealed, subscriptionId)).toThrow();
    const [version, iv, ciphertext, tag] = sealed.split('.');
    const altered = Buffer.from(ciphertext!, 'base64url');
    altered[0] = altered[0]! ^ 1;
    expect(() =>
      cipher.open([version, iv, altered.toString('base64url'), tag].join('.'), subscriptionId),
    ).toThrow();
  });

  it('need a 32-byte key', () => {
    expect(() => createSecretCipher(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
