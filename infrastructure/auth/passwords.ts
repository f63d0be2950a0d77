import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export type ScryptParameters = { N: number; r: number; p: number };

/** OWASP's scrypt recommendation (N=2^15, r=8, p=3): about 200 ms and 32 MB per hash on the reference machine. */
export const recommendedScrypt: ScryptParameters = { N: 2 ** 15, r: 8, p: 3 };

const keyLength = 32;

const scrypt = (password: string, salt: Buffer, { N, r, p }: ScryptParameters): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 16 * 1024 * 1024 };
    scryptCallback(password.normalize('NFC'), salt, keyLength, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });

/** A self-describing hash: `scrypt$N=32768,r=8,p=3$<salt>$<key>`, so parameters can rise without breaking old hashes. */
export const hashPassword = async (password: string, parameters = recommendedScrypt): Promise<string> => {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, parameters);
  const { N, r, p } = parameters;
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString('base64')}$${key.toString('base64')}`;
};

const parse = (stored: string) => {
  const match = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
  if (!match) return undefined;
  const [, N, r, p, salt, key] = match as unknown as [string, string, string, string, string, string];
  return {
    parameters: { N: Number(N), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt, 'base64'),
    key: Buffer.from(key, 'base64'),
  };
};

export const verifyPassword = async (password: string, stored: string): Promise<boolean> => {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await scrypt(password, parsed.salt, parsed.parameters);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
};

/**
 * For a login with an unknown e-mail: spends the same time as a real check, so response times do not
 * tell which e-mails are registered.
 */
export const createDecoyCheck = () => {
  const decoy = hashPassword(randomBytes(16).toString('base64'));
  return async (password: string): Promise<false> => {
    await verifyPassword(password, await decoy);
    return false;
  };
};
