import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Access tokens are signed with RS256: signing is rare (logins), verification happens on every request. */
export const signingAlgorithm = 'RS256';

export type SigningKey = { kid: string; privateKey: KeyObject; publicKey: KeyObject };

export type PublicJwk = {
  kty: 'RSA';
  n: string;
  e: string;
  kid: string;
  alg: typeof signingAlgorithm;
  use: 'sig';
};

/** RFC 7638 thumbprint of the public key: a kid that changes exactly when the key does. */
const thumbprint = (publicKey: KeyObject): string => {
  const { n, e } = publicKey.export({ format: 'jwk' });
  return createHash('sha256')
    .update(JSON.stringify({ e, kty: 'RSA', n }))
    .digest('base64url');
};

export const signingKeyFromPem = (pem: string): SigningKey => {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'rsa')
    throw new Error('the JWT signing key must be an RSA private key');
  const publicKey = createPublicKey(privateKey);
  return { kid: thumbprint(publicKey), privateKey, publicKey };
};

/** The embedded default's key: generated on first start, then read from the same file (mode 0600). */
export const loadOrCreateSigningKey = (path: string): SigningKey => {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(path, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
  }
  chmodSync(path, 0o600);
  return signingKeyFromPem(readFileSync(path, 'utf8'));
};

export const publicJwk = (key: Pick<SigningKey, 'kid' | 'publicKey'>): PublicJwk => {
  const { n, e } = key.publicKey.export({ format: 'jwk' });
  return { kty: 'RSA', n: n!, e: e!, kid: key.kid, alg: signingAlgorithm, use: 'sig' };
};
