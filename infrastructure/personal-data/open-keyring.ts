import type { Logger } from 'pino';
import { resolvePersonalDataKeys, type PersonalDataConfig } from '../config/personal-data-environment.ts';
import type { DataKeyStore } from './data-key-store.ts';
import { createPersonalDataKeyring } from './keyring.ts';

/** A process's keyring: over its data key store, with the configured key-encryption keys. */
export const openKeyring = ({
  store,
  config,
  generatedKeyPath,
  logger,
}: {
  store: DataKeyStore;
  config: PersonalDataConfig;
  /** Where the embedded default keeps a generated key-encryption key; null: it must be configured. */
  generatedKeyPath: string | null;
  logger: Logger;
}) => {
  const keys = resolvePersonalDataKeys(config, generatedKeyPath);
  return createPersonalDataKeyring({
    store,
    keyEncryptionKey: keys.current,
    previousKeyEncryptionKeys: keys.previous,
    logger,
  });
};
