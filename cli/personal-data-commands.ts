import { parseArgs } from 'node:util';
import { createSecretCipher } from '../infrastructure/crypto/secret-cipher.ts';
import { DataError } from './catalog-commands.ts';
import { UsageError, type CommandContext } from './user-commands.ts';

/**
 * personal-data:reseal: the second step of rotating the key-encryption key. Every data key that opens under
 * the current key or one of PERSONAL_DATA_PREVIOUS_KEY_FILES is sealed again under the current one; a key
 * that opens under none is left as it is and reported (exit 65, a DataError), so nothing is lost by a wrong key file.
 */
export const personalDataCommands: Record<
  string,
  (args: string[], context: CommandContext) => Promise<void>
> = {
  async 'personal-data:reseal'(args, context) {
    try {
      parseArgs({ args, options: {}, strict: true, allowPositionals: false });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const { dataKeys } = context.stores;
    const keys = context.stores.keyEncryptionKeys();
    const current = createSecretCipher(keys.current);
    const candidates = [current, ...keys.previous.map(createSecretCipher)];
    let resealed = 0;
    const unopened: string[] = [];
    for (const { ownerId, sealedKey } of await dataKeys.list()) {
      const opener = candidates.find((cipher) => {
        try {
          cipher.open(sealedKey, ownerId);
          return true;
        } catch {
          return false;
        }
      });
      if (!opener) {
        unopened.push(ownerId);
        continue;
      }
      const dataKey = opener.open(sealedKey, ownerId);
      if (await dataKeys.reseal(ownerId, current.seal(dataKey, ownerId))) resealed++;
    }
    context.out(`resealed ${resealed} data keys under the current key-encryption key`);
    if (unopened.length > 0) {
      throw new DataError(
        `${unopened.length} data keys open under none of the configured keys and were left as they are ` +
          `(owners ${unopened.slice(0, 5).join(', ')}${unopened.length > 5 ? ', ...' : ''}): add the key ` +
          'they were sealed under to PERSONAL_DATA_PREVIOUS_KEY_FILES and run this again',
      );
    }
  },
};
