import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createPersonalDataKeyring } from '../../infrastructure/personal-data/keyring.ts';
import { createSqliteDataKeyStore } from '../../infrastructure/personal-data/sqlite-data-key-store.ts';
import { openDatabase } from '../../infrastructure/sqlite/open-database.ts';
import { runAdmin } from '../support/run-admin.ts';

const root = mkdtempSync(join(tmpdir(), 'admin-personal-data-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const keyFile = (name: string) => {
  const path = join(root, name);
  writeFileSync(path, randomBytes(32).toString('base64'), { mode: 0o600 });
  return path;
};
const keyIn = (path: string) => Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');

describe('npm run admin -- personal-data:reseal (rotating the key-encryption key)', () => {
  it('seals every data key again under the new key; fields sealed before still open with it alone', async () => {
    const dataDir = join(root, `data-${randomUUID()}`);
    const oldKey = keyFile(`old-${randomUUID()}`);
    const newKey = keyFile(`new-${randomUUID()}`);
    const db = openDatabase({ path: join(dataDir, 'read-store.sqlite') });
    const store = createSqliteDataKeyStore(db);
    const logger = pino({ level: 'silent' });
    const before = createPersonalDataKeyring({ store, keyEncryptionKey: keyIn(oldKey), logger });
    const owners = [randomUUID(), randomUUID()];
    const text = JSON.stringify(
      await Promise.all(owners.map((owner) => before.seal(owner, `street of ${owner}`))),
    );

    const usage = await runAdmin(['personal-data:reseal', 'extra'], {
      DATA_DIR: dataDir,
      PERSONAL_DATA_KEY_FILE: newKey,
    });
    expect(usage.code).toBe(64);
    // Without the old key, nothing opens: reported, and nothing changed.
    const refused = await runAdmin(['personal-data:reseal'], {
      DATA_DIR: dataDir,
      PERSONAL_DATA_KEY_FILE: newKey,
    });
    expect(refused.code).toBe(65);
    expect(refused.stderr).toContain('2 data keys open under none');
    expect(await before.reveal(text)).toContain('street of');

    const rotated = await runAdmin(['personal-data:reseal'], {
      DATA_DIR: dataDir,
      PERSONAL_DATA_KEY_FILE: newKey,
      PERSONAL_DATA_PREVIOUS_KEY_FILES: oldKey,
    });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toContain('resealed 2 data keys');
    const after = createPersonalDataKeyring({ store, keyEncryptionKey: keyIn(newKey), logger });
    expect(JSON.parse(await after.reveal(text))).toEqual(owners.map((owner) => `street of ${owner}`));
    const oldOnly = createPersonalDataKeyring({ store, keyEncryptionKey: keyIn(oldKey), logger });
    expect(JSON.parse(await oldOnly.reveal(text))).toEqual(['[erased]', '[erased]']);
    db.close();
  });
});
