import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { loadOrCreateSecretKey, secretKeyFromBase64 } from '../crypto/secret-cipher.ts';
import { requireExactlyOne } from './service-environment.ts';

const base64Key = z
  .string()
  .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be the base64 of 32 random bytes')
  .transform((value) => Buffer.from(value, 'base64'));

/**
 * The key that binds a Consistency-Token to the caller it was issued to: every process that issues tokens
 * (the command API) or reads them (the query API); the embedded default, which does both, keeps one in
 * DATA_DIR/keys when none is configured.
 */
export const consistencyTokenEnvironment = {
  CONSISTENCY_TOKEN_KEY: base64Key
    .optional()
    .describe(
      'Binds each Consistency-Token to the caller it was issued to: base64 of 32 bytes, the same for the ' +
        'command API and the query API (a secret: prefer CONSISTENCY_TOKEN_KEY_FILE). Without it the ' +
        'embedded default keeps one in DATA_DIR/keys.',
    ),
  CONSISTENCY_TOKEN_KEY_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('A file holding CONSISTENCY_TOKEN_KEY (as `npm run admin -- keys:init` writes it).'),
};

export const requireConsistencyTokenKey = requireExactlyOne(
  ['CONSISTENCY_TOKEN_KEY_FILE', 'CONSISTENCY_TOKEN_KEY'],
  'the key binding Consistency-Tokens to their caller',
);

export const consistencyTokenConfig = (env: {
  CONSISTENCY_TOKEN_KEY?: Buffer | undefined;
  CONSISTENCY_TOKEN_KEY_FILE?: string | undefined;
}) => ({
  key: env.CONSISTENCY_TOKEN_KEY ?? null,
  keyFile: env.CONSISTENCY_TOKEN_KEY_FILE ?? null,
});

export type ConsistencyTokenConfig = ReturnType<typeof consistencyTokenConfig>;

/**
 * The configured key (inline or in a file), or, where none is configured, the one kept in
 * `generatedKeyPath` (the embedded default's DATA_DIR/keys/consistency-token-key).
 */
export const resolveConsistencyTokenKey = (
  config: ConsistencyTokenConfig,
  generatedKeyPath: string | null,
): Buffer => {
  if (config.key) return config.key;
  if (config.keyFile) {
    const key = secretKeyFromBase64(readFileSync(config.keyFile, 'utf8').trim());
    if (key.length !== 32) throw new Error(`${config.keyFile} does not hold the base64 of 32 bytes`);
    return key;
  }
  if (generatedKeyPath === null) throw new Error('no Consistency-Token key is configured');
  return loadOrCreateSecretKey(generatedKeyPath);
};
