import { accessDescription } from '../domain/identity/permissions.ts';
import { z } from 'zod';
import { oauthErrorCodes, type OAuthErrorCode } from '../infrastructure/auth/oauth-errors.ts';
import { refreshRequest, revocationRequest, tokenRequest } from '../infrastructure/auth/token-routes.ts';
import { addressSchema as addressBody } from '../command-api/identity/address-routes.ts';
import { roles } from '../domain/identity/roles.ts';
import type { ApiOperation, ApiResponse } from '../infrastructure/http/openapi/api-operation.ts';
import { problemSchema, storedAddressSchema, validationProblemSchema } from './common-schemas.ts';

const tokenResponse = z
  .strictObject({
    access_token: z.string().meta({ description: 'A JWT (RS256), valid for expires_in seconds.' }),
    token_type: z.literal('Bearer'),
    expires_in: z.literal(3600),
    refresh_token: z.string().meta({
      description:
        'Opaque, single use: exchange it once (grant_type=refresh_token at /auth/token, or at /auth/token/refresh) for a new pair.',
    }),
  })
  .meta({ id: 'TokenResponse' });

const tokens = (description: string): ApiResponse => ({
  description,
  body: tokenResponse,
  headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
});

const rateLimited =
  'Too many requests from this address, or too many wrong passwords for this username from this address; see Retry-After.';
const signInLimited =
  'Too many requests from this address, too many wrong passwords for this username from this address, or ' +
  'too many sessions opened by this user (USER_WRITE_LIMIT_SESSIONS); see Retry-After.';

/** RFC 6749, section 5.2's members, which the token endpoints' problems carry as extensions. */
const oauthMembers = (codes: readonly [OAuthErrorCode, ...OAuthErrorCode[]]) => ({
  error: z.enum(codes).meta({ description: 'The OAuth 2 error code (RFC 6749, section 5.2).' }),
  error_description: z
    .string()
    .meta({ description: 'What is wrong, for the developer: printable ASCII without `"` or `\\`.' }),
});
const [invalidRequest, invalidGrant, unsupportedGrantType] = oauthErrorCodes;

const tokenRequestProblem = validationProblemSchema
  .extend(oauthMembers([invalidRequest, unsupportedGrantType]))
  .meta({
    id: 'TokenRequestProblem',
    description:
      'A 400 of a token endpoint: a validation-failed problem whose error is invalid_request, or unsupported_grant_type for a grant_type the endpoint does not take.',
  });
const revocationProblem = validationProblemSchema.extend(oauthMembers([invalidRequest])).meta({
  id: 'RevocationProblem',
  description: 'A 400 of POST /auth/revoke: a validation-failed problem whose error is invalid_request.',
});
const grantProblem = problemSchema.extend(oauthMembers([invalidGrant])).meta({
  id: 'TokenGrantProblem',
  description:
    'A 401 of a token endpoint: the password or the refresh token is not good (invalid_grant). Its challenge is `Bearer realm="<realm>"`, without an error attribute: no access token was presented.',
});

/** The 400 of the token endpoints, as the OAuth 2 errors it answers. */
const badTokenRequest = (unsupported: string) => ({
  when:
    'A parameter is missing or invalid, the body is malformed (not JSON, nested deeper than 64 levels, naming a member twice, or not decodable as its Content-Encoding says), or the path or query string has a percent-escape that does not decode: `error` is `invalid_request`, and errors lists each field (100 at most). ' +
    unsupported,
  body: tokenRequestProblem,
});

const sessionSchema = z
  .strictObject({
    id: z
      .string()
      .meta({ description: 'The session’s id: what DELETE /users/me/sessions/{sessionId} takes.' }),
    startedAt: z.iso.datetime().meta({ description: 'When the user signed in.' }),
    lastUsedAt: z.iso.datetime().meta({ description: 'The sign-in, or the session’s last refresh.' }),
    expiresAt: z.iso
      .datetime()
      .meta({ description: 'When its refresh token expires, unless it is refreshed before.' }),
    clientAddress: z.string().nullable().meta({ description: 'The client address at that moment.' }),
    userAgent: z.string().nullable().meta({ description: 'Its User-Agent (at most 200 characters).' }),
    current: z.boolean().meta({ description: 'Whether the access token of this request belongs to it.' }),
  })
  .meta({ id: 'Session', description: 'A session: a sign-in whose refresh token can still be used.' });

const addressOfCaller = {
  forbidden: 'The caller’s role keeps no addresses (auditors).',
} as const;

export const authOperations: ApiOperation[] = [
  {
    method: 'post',
    path: '/auth/token',
    operationId: 'createToken',
    tag: 'auth',
    summary: 'The OAuth 2 token endpoint: sign in with a password, or extend a session with a refresh token',
    description:
      'RFC 6749: `grant_type=password` with `username` (the e-mail address) and `password` signs in and starts a session; `grant_type=refresh_token` with `refresh_token` exchanges it for a new pair, as POST /auth/token/refresh does. Every client is public: there is no client authentication, and `client_id`, `scope`, `resource` and other parameters the endpoint does not know are ignored; an empty value counts as omitted. Errors are problem details carrying RFC 6749’s `error` and `error_description` members.',
    body: { schema: tokenRequest, media: ['json', 'form'] },
    responses: { 200: tokens('An access token and a refresh token.') },
    problems: {
      'validation-failed': badTokenRequest(
        'A grant_type other than password and refresh_token: `error` is `unsupported_grant_type`.',
      ),
      unauthorized: {
        when: 'Wrong username or password, or the refresh token is unknown, expired, revoked or already used: `error` is `invalid_grant`.',
        body: grantProblem,
      },
      'rate-limited': signInLimited,
    },
  },
  {
    method: 'post',
    path: '/auth/token/refresh',
    operationId: 'refreshToken',
    tag: 'auth',
    summary: 'Extend a session: exchange a refresh token for a new pair',
    description:
      'The refresh grant of POST /auth/token at a path of its own; `grant_type=refresh_token` may be left out. Refresh tokens are single use and rotated. Presenting one that was already used revokes its whole family (reuse detection). Unknown parameters are ignored; errors carry RFC 6749’s `error` members, as at POST /auth/token.',
    body: { schema: refreshRequest, media: ['json', 'form'] },
    responses: { 200: tokens('A new access token and a new refresh token.') },
    problems: {
      'validation-failed': badTokenRequest(
        'A grant_type other than refresh_token: `error` is `unsupported_grant_type`.',
      ),
      unauthorized: {
        when: 'The refresh token is unknown, expired, revoked or already used: `error` is `invalid_grant`.',
        body: grantProblem,
      },
      'rate-limited': rateLimited,
    },
  },
  {
    method: 'post',
    path: '/auth/revoke',
    operationId: 'revokeToken',
    tag: 'auth',
    summary: 'Revoke a token (RFC 7009): sign out',
    description:
      'A refresh token ends its session: its refresh tokens and every access token issued in it are refused from then on. An access token is refused from then until it expires. The answer is the same whether or not the token was known, valid or already revoked; an unknown `token_type_hint` is ignored, and so are parameters the endpoint does not know (`client_id` among them: every client is public).',
    body: { schema: revocationRequest, media: ['json', 'form'] },
    responses: {
      200: { description: 'Revoked, or nothing to revoke.', headers: { 'Cache-Control': 'no-store' } },
    },
    problems: {
      'validation-failed': {
        when: 'The token is missing or invalid, the body is malformed, or the path or query string has a percent-escape that does not decode: `error` is `invalid_request` (RFC 7009, section 2.2.1), and errors lists each field (100 at most).',
        body: revocationProblem,
      },
      'rate-limited': rateLimited,
    },
  },
  {
    method: 'get',
    path: '/.well-known/jwks.json',
    operationId: 'getSigningKeys',
    tag: 'auth',
    summary: 'The public keys that verify access tokens (JWKS)',
    description:
      'The public key of the key pair that signs access tokens (RS256), named by `kid`: any service verifies tokens with it, without asking this one.',
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
    method: 'get',
    path: '/users/me/sessions',
    operationId: 'listSessions',
    tag: 'auth',
    summary: 'The signed-in user’s active sessions',
    description: 'Every sign-in whose refresh token can still be used, most recently used first.',
    access: accessDescription('listSessions'),
    responses: {
      200: {
        description: 'The sessions.',
        body: z.array(sessionSchema),
        headers: { ETag: true, 'Cache-Control': 'private, no-cache' },
      },
      304: { description: 'Not modified.', headers: { ETag: true } },
    },
  },
  {
    method: 'delete',
    path: '/users/me/sessions',
    operationId: 'endAllSessions',
    tag: 'auth',
    summary: 'Sign out everywhere: end every session',
    description:
      'Every refresh token of the user stops working, and so does every access token issued until now, the one of this request included.',
    access: accessDescription('endAllSessions'),
    responses: { 204: { description: 'Ended.', headers: { 'Cache-Control': 'no-store' } } },
  },
  {
    method: 'delete',
    path: '/users/me/sessions/{sessionId}',
    operationId: 'endSession',
    tag: 'auth',
    summary: 'End one session',
    description: 'Its refresh token and the access tokens issued in it stop working.',
    access: accessDescription('endSession'),
    params: z.object({ sessionId: z.string() }),
    responses: { 204: { description: 'Ended.', headers: { 'Cache-Control': 'no-store' } } },
    problems: { 'not-found': 'The user has no active session with this id.' },
  },
  {
    method: 'get',
    path: '/users/me/addresses',
    operationId: 'listAddresses',
    tag: 'auth',
    summary: 'The signed-in user’s stored addresses',
    access: accessDescription('listAddresses'),
    responses: {
      200: {
        description: 'The addresses, oldest first.',
        body: z.array(storedAddressSchema),
        headers: { ETag: true, 'Cache-Control': 'private, no-cache' },
      },
      304: { description: 'Not modified.', headers: { ETag: true } },
    },
    problems: addressOfCaller,
  },
  {
    method: 'get',
    path: '/users/me/addresses/{addressId}',
    operationId: 'getAddress',
    tag: 'auth',
    summary: 'A stored address (where POST /users/me/addresses’s Location points)',
    access: accessDescription('getAddress'),
    params: z.object({ addressId: z.string() }),
    responses: {
      200: {
        description: 'The address.',
        body: storedAddressSchema,
        headers: { ETag: true, 'Cache-Control': 'private, no-cache' },
      },
      304: { description: 'Not modified.', headers: { ETag: true } },
    },
    problems: { ...addressOfCaller, 'not-found': 'The user has no address with this id.' },
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
      'rate-limited':
        'The user stored too many addresses in the window (USER_WRITE_LIMIT_ADDRESSES, or STAFF_ for staff ' +
        'and admins); see Retry-After.',
    },
  },
  {
    method: 'delete',
    path: '/users/me/addresses/{addressId}',
    operationId: 'removeAddress',
    tag: 'auth',
    summary: 'Remove a stored address',
    description:
      'Orders placed with it keep their copy. In the distributed mode, an order placed through another command API within a second of the removal may still use it (each keeps a customer’s addresses for a second).',
    access: accessDescription('removeAddress'),
    params: z.object({ addressId: z.string() }),
    responses: { 204: { description: 'Removed.', headers: { 'Cache-Control': 'no-store' } } },
    problems: {
      forbidden: 'The caller’s role keeps no addresses (auditors).',
      'not-found': 'The user has no address with this id.',
    },
  },
  {
    method: 'delete',
    path: '/users/{userId}',
    operationId: 'eraseUser',
    tag: 'auth',
    summary: 'Erase a user’s personal data',
    description:
      'Crypto-shredding (GDPR article 17): deletes the user’s data key, so every shipping address, ' +
      'note and cancellation reason of its orders reads as `"[erased]"` from then on, wherever it shows (orders, lists, past ' +
      'revisions, histories, the audit log, exports, webhook redeliveries); anonymises the user’s record ' +
      '(e-mail, name, password, stored addresses), disables it and ends its sessions; and appends ' +
      '`PersonalDataErased` (who, when; nothing about the person) to the stream `user-{userId}`. Orders, ' +
      'amounts, statuses, timestamps and the history itself stay. Idempotent: a repeat answers 204 and ' +
      'changes nothing. Webhooks delivered before cannot be recalled. Other processes see the erasure ' +
      'within 5 seconds (their key cache). The last active admin is not erased (409). Also ' +
      '`npm run admin -- user:erase --email E` (or `--id`).',
    access: accessDescription('eraseUser'),
    params: z.object({ userId: z.string() }),
    responses: { 204: { description: 'Erased (now or before).' } },
    problems: {
      forbidden: 'Only admins erase users.',
      'not-found': 'There is no user with this id.',
      conflict:
        'The user is the last active admin (one holding the admin role, not disabled): the service would ' +
        'be left without one. Make another user admin first.',
    },
  },
];
