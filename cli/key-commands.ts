import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadOrCreateSigningKey } from '../infrastructure/auth/signing-keys.ts';
import { loadOrCreateSecretKey } from '../infrastructure/crypto/secret-cipher.ts';
import { DataError } from './catalog-commands.ts';
import { UsageError, type CommandContext } from './user-commands.ts';

/** What the key commands need: no store, only somewhere to report (they run before any store exists). */
export type KeyCommandContext = Pick<CommandContext, 'out' | 'err'>;

/**
 * The files keys:init provides: JWT_PRIVATE_KEY_FILE, WEBHOOK_SECRET_KEY_FILE, PERSONAL_DATA_KEY_FILE and
 * CONSISTENCY_TOKEN_KEY_FILE of the distributed mode.
 */
export const keyFiles = {
  signingKey: 'jwt-signing-key.pem',
  webhookSecretKey: 'webhook-secret-key',
  personalDataKey: 'personal-data-key',
  consistencyTokenKey: 'consistency-token-key',
} as const;

/**
 * Runs `load` (which creates the file when it is missing) and says which it did. An existing file that
 * does not hold a key is bad data (exit 65); a system error (permissions) is reported as it is.
 */
const provide = (path: string, what: string, load: (path: string) => void): string => {
  const existed = existsSync(path);
  try {
    load(path);
  } catch (error) {
    if (!existed || (error as NodeJS.ErrnoException).syscall !== undefined) throw error;
    throw new DataError(
      `${path} exists but is not ${what} (${(error as Error).message}); move it away to generate a new one`,
    );
  }
  return `${existed ? 'kept   ' : 'created'} ${path}`;
};

export const keyCommands: Record<string, (args: string[], context: KeyCommandContext) => Promise<void>> = {
  async 'keys:init'(args, { out, err }) {
    let positionals: string[];
    try {
      ({ positionals } = parseArgs({ args, options: {}, strict: true, allowPositionals: true }));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const [dir, ...extra] = positionals;
    if (!dir || extra.length > 0) throw new UsageError('keys:init takes one DIR');
    const directory = resolve(dir);

    // Only a directory made here gets 0700 (whatever the umask); an existing one (a mounted volume) keeps
    // its owner and mode.
    const created = mkdirSync(directory, { recursive: true, mode: 0o700 }) !== undefined;
    if (created) chmodSync(directory, 0o700);
    out(`${created ? 'created' : 'kept   '} ${directory}/`);
    if (!created && (statSync(directory).mode & 0o077) !== 0) {
      err(`warning: ${directory} is open to group or others; the keys in it are secrets (chmod 700)`);
    }

    // The same functions as the embedded default: generated where missing (mode 0600), read where present.
    out(
      provide(join(directory, keyFiles.signingKey), 'an RSA private key in PEM', (path) => {
        loadOrCreateSigningKey(path);
      }),
    );
    out(
      provide(join(directory, keyFiles.webhookSecretKey), 'the base64 of 32 bytes', (path) => {
        if (loadOrCreateSecretKey(path).length !== 32) throw new Error('not 32 bytes once decoded');
      }),
    );
    out(
      provide(join(directory, keyFiles.personalDataKey), 'the base64 of 32 bytes', (path) => {
        if (loadOrCreateSecretKey(path).length !== 32) throw new Error('not 32 bytes once decoded');
      }),
    );
    out(
      provide(join(directory, keyFiles.consistencyTokenKey), 'the base64 of 32 bytes', (path) => {
        if (loadOrCreateSecretKey(path).length !== 32) throw new Error('not 32 bytes once decoded');
      }),
    );
  },
};
