import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Webhook secrets must sign, so they are stored recoverable: sealed with AES-256-GCM under a key from
 * configuration (WEBHOOK_SECRET_KEY), never in the clear. The subscription id is the additional
 * authenticated data, so a sealed secret copied onto another subscription does not open.
 * Format: `v1.<iv>.<ciphertext>.<tag>`, base64url parts.
 */
export type SecretCipher = {
  seal(secret: string, subscriptionId: string): string;
  open(sealed: string, subscriptionId: string): string;
};

export class SecretCipherKeyError extends Error {
  readonly kind = 'secret-cipher-key';
}

export const createSecretCipher = (key: Buffer): SecretCipher => {
  if (key.length !== 32) throw new SecretCipherKeyError('the webhook secret key must be 32 bytes');
  return {
    seal(secret, subscriptionId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(subscriptionId));
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return ['v1', iv, ciphertext, cipher.getAuthTag()]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed, subscriptionId) {
      const [version, iv, ciphertext, tag] = sealed.split('.');
      if (version !== 'v1' || !iv || !ciphertext || !tag) throw new Error('not a sealed webhook secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
        .setAAD(Buffer.from(subscriptionId))
        .setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    },
  };
};

/** WEBHOOK_SECRET_KEY: the base64 of 32 bytes. */
export const secretKeyFromBase64 = (value: string): Buffer => Buffer.from(value, 'base64');

/** The embedded default's key: generated on first start, then read from the same file (mode 0600). */
export const loadOrCreateSecretKey = (path: string): Buffer => {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  }
  chmodSync(path, 0o600);
  return secretKeyFromBase64(readFileSync(path, 'utf8').trim());
};

/** The configured key (inline or in a file), or, where none is configured, the one kept in `generatedKeyPath`. */
export const resolveSecretKey = (
  settings: { secretKey: Buffer | null; secretKeyFile: string | null },
  generatedKeyPath: string | null,
): Buffer => {
  if (settings.secretKey) return settings.secretKey;
  if (settings.secretKeyFile) return secretKeyFromBase64(readFileSync(settings.secretKeyFile, 'utf8').trim());
  if (generatedKeyPath === null) throw new Error('no webhook secret key is configured');
  return loadOrCreateSecretKey(generatedKeyPath);
};
