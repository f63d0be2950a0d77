import { createPrivateKey } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../support/run-admin.ts';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'order-service-keys-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;
// No store anywhere: DATA_DIR names a directory that does not exist and must stay so.
const keysInit = (dir: string) => runAdmin(['keys:init', dir], { DATA_DIR: join(root, 'no-store-here') });

describe('npm run admin -- keys:init DIR (the keys of the distributed mode)', () => {
  const dir = () => join(root, 'keys');
  const signingKey = () => join(dir(), 'jwt-signing-key.pem');
  const secretKey = () => join(dir(), 'webhook-secret-key');

  it('creates DIR (0700) with an RS256 signing key and a 32-byte webhook secret key (0600), with no store', async () => {
    const result = await keysInit(dir());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`created ${dir()}/`);
    expect(result.stdout).toContain(`created ${signingKey()}`);
    expect(result.stdout).toContain(`created ${secretKey()}`);

    expect(statSync(dir()).isDirectory()).toBe(true);
    expect(mode(dir())).toBe(0o700);
    expect(mode(signingKey())).toBe(0o600);
    expect(mode(secretKey())).toBe(0o600);

    const key = createPrivateKey(readFileSync(signingKey(), 'utf8'));
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBeGreaterThanOrEqual(2048);
    const secret = readFileSync(secretKey(), 'utf8').trim();
    expect(secret).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret, 'base64')).toHaveLength(32);
    const personalDataKey = join(dir(), 'personal-data-key');
    expect(result.stdout).toContain(`created ${personalDataKey}`);
    expect(mode(personalDataKey)).toBe(0o600);
    expect(Buffer.from(readFileSync(personalDataKey, 'utf8').trim(), 'base64')).toHaveLength(32);
    const consistencyTokenKey = join(dir(), 'consistency-token-key');
    expect(result.stdout).toContain(`created ${consistencyTokenKey}`);
    expect(mode(consistencyTokenKey)).toBe(0o600);
    expect(Buffer.from(readFileSync(consistencyTokenKey, 'utf8').trim(), 'base64')).toHaveLength(32);

    expect(existsSync(join(root, 'no-store-here'))).toBe(false);
  });

  it('run again, keeps both keys byte for byte', async () => {
    const before = [readFileSync(signingKey()), readFileSync(secretKey())];
    const result = await keysInit(dir());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`kept    ${dir()}/`);
    expect(result.stdout).toContain(`kept    ${signingKey()}`);
    expect(result.stdout).toContain(`kept    ${secretKey()}`);
    expect(result.stdout).not.toContain('created');
    expect(readFileSync(signingKey())).toEqual(before[0]);
    expect(readFileSync(secretKey())).toEqual(before[1]);
    expect(mode(signingKey())).toBe(0o600);
    expect(mode(secretKey())).toBe(0o600);
  });

  it('creates only the key that is missing', async () => {
    const signing = readFileSync(signingKey());
    const secret = readFileSync(secretKey());
    unlinkSync(secretKey());
    const result = await keysInit(dir());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`kept    ${signingKey()}`);
    expect(result.stdout).toContain(`created ${secretKey()}`);
    expect(readFileSync(signingKey())).toEqual(signing);
    expect(readFileSync(secretKey())).not.toEqual(secret);
    expect(mode(secretKey())).toBe(0o600);
  });

  it('refuses an existing file that holds no key (exit 65) and leaves it as it is', async () => {
    const bad = join(root, 'bad-keys');
    await keysInit(bad);
    writeFileSync(join(bad, 'webhook-secret-key'), 'c2hvcnQ=');
    const result = await keysInit(bad);
    expect(result.code).toBe(65);
    expect(result.stderr).toContain('webhook-secret-key exists but is not the base64 of 32 bytes');
    expect(readFileSync(join(bad, 'webhook-secret-key'), 'utf8')).toBe('c2hvcnQ=');

    writeFileSync(join(bad, 'jwt-signing-key.pem'), 'not a key');
    const pem = await keysInit(bad);
    expect(pem.code).toBe(65);
    expect(pem.stderr).toContain('jwt-signing-key.pem exists but is not an RSA private key in PEM');
    expect(readFileSync(join(bad, 'jwt-signing-key.pem'), 'utf8')).toBe('not a key');
  });

  it('without DIR, prints the usage (exit 64)', async () => {
    const result = await runAdmin(['keys:init'], { DATA_DIR: join(root, 'no-store-here') });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('keys:init takes one DIR');
    expect(result.stderr).toContain('keys:init DIR');
  });
});
