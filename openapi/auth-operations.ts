import { accessDescription } from '../identity/permissions.ts';
import { z } from 'zod';
import { passwordGrant, refreshGrant } from '../identity/identity-routes.ts';
import { addressSchema as addressBody } from '../identity/user-routes.ts';
import { roles } from '../identity/roles.ts';
import type { ApiOperation, ApiResponse } from '../infrastructure/http/openapi/api-operation.ts';
import { storedAddressSchema } from './common-schemas.ts';

const tokenResponse = z
  .strictObject({
    access_token: z.string().meta({ description: 'A JWT (RS256), valid for expires_in seconds.' }),
    token_type: z.literal('Bearer'),
    expires_in: z.literal(3600),
    refresh_token: z
      .string()
      .meta({ description: 'Opaque, single use: exchange it once at /auth/token/refresh for a new pair.' }),
  })
  .meta({ id: 'TokenResponse' });

const tokens = (description: string): ApiResponse => ({
  description,
  body: tokenResponse,
  headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
});

const rateLimited = 'Too many attempts from this address or for this username; see Retry-After.';

export const authOperations: ApiOperation[] = [
  {
    method: 'post',
    path: '/auth/token',
    operationId: 'createToken',
    tag: 'auth',
    summary: 'Sign in: exchange a username and password for tokens',
    body: { schema: passwordGrant, media: ['json', 'form'] },
    responses: { 200: tokens('An access token and a refresh token.') },
    problems: { unauthorized: 'Wrong username or password.', 'rate-limited': rateLimited },
  },
  {
    method: 'post',
    path: '/auth/token/refresh',
    operationId: 'refreshToken',
    tag: 'auth',
    summary: 'Extend a session: exchange a refresh token for a new pair',
    description:
      'Refresh tokens are single use and rotated. Presenting one that was already used revokes its whole family (reuse detection).',
    body: { schema: refreshGrant, media: ['json', 'form'] },
    responses: { 200: tokens('A new access token and a new refresh token.') },
    problems: {
      unauthorized: 'The refresh token is unknown, expired, revoked or already used.',
      'rate-limited': rateLimited,
    },
  },
  {
    method: 'get',
    path: '/.well-known/jwks.json',
    operationId: 'getSigningKeys',
    tag: 'auth',
    summary: 'The public keys that verify access tokens (JWKS)',
    responses: {
      200: {
        description: 'A JSON Web Key Set.',
        body: z
          .strictObject({
            keys: z.array(
              z.strictObject({
                kty: z.literal('RSA'),
                n: z.string(),
                e: z.string(),
                kid: z.string(),
                alg: z.literal('RS256'),
                use: z.literal('sig'),
              }),
            ),
          })
          .meta({ id: 'JsonWebKeySet' }),
        headers: { ETag: true, 'Cache-Control': 'public, max-age=300' },
      },
      304: { description: 'Not modified.', headers: { ETag: true } },
    },
  },
  {
    method: 'get',
    path: '/users/me',
    operationId: 'getCurrentUser',
    tag: 'auth',
    summary: 'The signed-in user and their stored addresses',
    access: accessDescription('getCurrentUser'),
    responses: {
      200: {
        description: 'The user.',
        body: z
          .strictObject({
            id: z.string(),
            email: z.email(),
            name: z.string(),
            roles: z.array(z.enum(roles)),
            addresses: z.array(storedAddressSchema),
          })
          .meta({ id: 'CurrentUser' }),
        headers: { ETag: true, 'Cache-Control': 'private, no-cache' },
      },
      304: { description: 'Not modified.', headers: { ETag: true } },
    },
  },
  {
    method: 'post',
    path: '/users/me/addresses',
    operationId: 'addAddress',
    tag: 'auth',
    summary: 'Store an address (to ship orders to)',
    access: accessDescription('addAddress'),
    body: { schema: addressBody },
    responses: {
      201: {
        description: 'The stored address; its id is what POST /orders takes as shippingAddressId.',
        body: storedAddressSchema,
        headers: { Location: true, 'Cache-Control': 'no-store' },
      },
    },
    problems: {
      forbidden: 'The caller’s role keeps no addresses (auditors).',
      conflict: 'The user already has the maximum number of stored addresses (50).',
    },
  },
  {
    method: 'delete',
    path: '/users/me/addresses/{addressId}',
    operationId: 'removeAddress',
    tag: 'auth',
    summary: 'Remove a stored address',
    description: 'Orders placed with it keep their copy.',
    access: accessDescription('removeAddress'),
    params: z.object({ addressId: z.string() }),
    responses: { 204: { description: 'Removed.', headers: { 'Cache-Control': 'no-store' } } },
    problems: {
      forbidden: 'The caller’s role keeps no addresses (auditors).',
      'not-found': 'The user has no address with this id.',
    },
  },
];
