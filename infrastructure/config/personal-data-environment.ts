import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { loadOrCreateSecretKey, secretKeyFromBase64 } from '../crypto/secret-cipher.ts';
import { requireExactlyOne } from './service-environment.ts';

const base64Key = z
  .string()
  .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be the base64 of 32 random bytes')
  .transform((value) => Buffer.from(value, 'base64'));

/** The key-encryption key of personal data (crypto-shredding): every process that seals or opens it. */
export const personalDataEnvironment = {
  PERSONAL_DATA_KEY: base64Key
    .optional()
    .describe(
      'Seals the data keys of personal data (shipping addresses, notes): base64 of 32 bytes (a secret: ' +
        'prefer PERSONAL_DATA_KEY_FILE). Without it the embedded default keeps one in DATA_DIR/keys.',
    ),
  PERSONAL_DATA_KEY_FILE: z
    .string()
    .min(1)
    .optional()
    .describe('A file holding PERSONAL_DATA_KEY (as `npm run admin -- keys:init` writes it).'),
  PERSONAL_DATA_PREVIOUS_KEY_FILES: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((path) => path.trim())
        .filter(Boolean),
    )
    .optional()
    .describe(
      'While rotating the key-encryption key: files of the keys it replaces (comma-separated), so data ' +
        'keys not yet re-sealed (`npm run admin -- personal-data:reseal`) still open.',
    ),
};

export const requirePersonalDataKey = requireExactlyOne(
  ['PERSONAL_DATA_KEY_FILE', 'PERSONAL_DATA_KEY'],
  'the key sealing the data keys of personal data',
);

export const personalDataConfig = (env: {
  PERSONAL_DATA_KEY?: Buffer | undefined;
  PERSONAL_DATA_KEY_FILE?: string | undefined;
  PERSONAL_DATA_PREVIOUS_KEY_FILES?: string[] | undefined;
}) => ({
  key: env.PERSONAL_DATA_KEY ?? null,
  keyFile: env.PERSONAL_DATA_KEY_FILE ?? null,
  previousKeyFiles: env.PERSONAL_DATA_PREVIOUS_KEY_FILES ?? [],
});

export type PersonalDataConfig = ReturnType<typeof personalDataConfig>;

const keyFromFile = (path: string): Buffer => {
  const key = secretKeyFromBase64(readFileSync(path, 'utf8').trim());
  if (key.length !== 32) throw new Error(`${path} does not hold the base64 of 32 bytes`);
  return key;
};

/**
 * The configured key-encryption key (inline or in a file), or, where none is configured, the one kept in
 * `generatedKeyPath` (the embedded default's DATA_DIR/keys/personal-data-key); and the previous ones.
 */
export const resolvePersonalDataKeys = (
  config: PersonalDataConfig,
  generatedKeyPath: string | null,
): { current: Buffer; previous: Buffer[] } => {
  const previous = config.previousKeyFiles.map(keyFromFile);
  if (config.key) return { current: config.key, previous };
  if (config.keyFile) return { current: keyFromFile(config.keyFile), previous };
  if (generatedKeyPath === null) throw new Error('no personal data key is configured');
  return { current: loadOrCreateSecretKey(generatedKeyPath), previous };
};
