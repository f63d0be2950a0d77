import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConsistencyTokens } from '../../infrastructure/http/consistency-tokens.ts';

/**
 * The position a Consistency-Token names (`<position>.<MAC>`): for tests that compare tokens, or that read
 * as another user what one user wrote.
 */
export const positionOfToken = (token: string): bigint => {
  const [position] = token.split('.');
  if (!position || !/^\d+$/.test(position)) throw new Error(`${token} is not a Consistency-Token`);
  return BigInt(position);
};

/**
 * A Consistency-Token of `position` for the user `userId`, as the service would issue it: made with the key
 * the service keeps in DATA_DIR/keys (the embedded default's, and the distributed harness's file), for tests
 * that append behind the service's back or read as one user what another wrote. A test that only sends
 * back what a command answered needs none of this.
 */
export const consistencyTokenFor = (
  service: { dataDir: string },
  position: bigint | string,
  userId: string,
): string => {
  const key = Buffer.from(
    readFileSync(join(service.dataDir, 'keys', 'consistency-token-key'), 'utf8').trim(),
    'base64',
  );
  return createConsistencyTokens(key).issue(BigInt(position), userId);
};

/** Another user's Consistency-Token (as a command answered it) made `reader`'s: the same position, bound to them. */
export const tokenOf = (service: { dataDir: string }, reader: { id: string }, token: string): string =>
  consistencyTokenFor(service, positionOfToken(token), reader.id);
