/**
 * The console's client of the public HTTP API: the session (tokens kept in memory only, refreshed a
 * minute before they expire, revoked on sign-out), requests with the bearer token, problem details turned
 * into ApiProblem, and read-your-writes: the Consistency-Token of the last command goes along on the
 * reads that follow, so the console never shows an order or a subscription older than its own action.
 *
 * @typedef {import('./types.js').Tokens} Tokens
 * @typedef {import('./types.js').CurrentUser} CurrentUser
 * @typedef {import('./types.js').Problem} Problem
 * @typedef {{ user: CurrentUser, accessToken: string, refreshToken: string, expiresAt: number }} Session
 * @typedef {{ status: number, body: any, etag: string | null, consistencyToken: string | null, headers: Headers }} Answer
 */
import { problemInWords } from './lib/problems.js';

/** A request that did not succeed: its status (0 when no answer came), its problem details, in words. */
export class ApiProblem extends Error {
  /** @param {number} status @param {Problem | null} problem */
  constructor(status, problem) {
    const words = problemInWords(status, problem);
    super(words.detail);
    this.status = status;
    this.problem = problem;
    this.words = words;
  }
}

/** How long before its expiry an access token is refreshed. */
const refreshMarginMs = 60_000;

/** Reads that wait for the console's own last write (the Consistency-Token of the service). */
const readsOwnWrites = /^\/(orders|webhooks)(\/|\?|$)/;

/** @param {Response} response @returns {Promise<any>} */
const bodyOf = async (response) => {
  const type = response.headers.get('content-type') ?? '';
  if (response.status === 204 || response.status === 304) return null;
  if (type.includes('json')) return response.json();
  return response.text();
};

/**
 * The position a Consistency-Token names: `<position>.<MAC>`, the MAC binding it to the signed-in user.
 * @param {string} token
 */
const positionOf = (token) => BigInt(/^\d+/.exec(token)?.[0] ?? '0');

/** Of two tokens of the same user, the one naming the later position. @param {string} a @param {string | null} b */
const laterToken = (a, b) => (b === null || positionOf(a) > positionOf(b) ? a : b);

export class Api {
  /**
   * @param {{ commandBase?: string, processes?: string[], onSessionChange?: (session: Session | null, reason?: string) => void }} options
   */
  constructor({ commandBase = '', processes = [], onSessionChange = () => {} } = {}) {
    this.commandBase = commandBase;
    /** The other processes whose metrics this origin serves, as GET /metrics?process={name}. */
    this.processes = processes;
    this.onSessionChange = onSessionChange;
    /** @type {Session | null} */
    this.session = null;
    /** @type {string | null} */
    this.consistencyToken = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.refreshTimer = undefined;
    /** @type {Promise<boolean> | null} */
    this.refreshing = null;
  }

  /**
   * @param {string} method
   * @param {string} url
   * @param {{ headers?: Record<string, string>, body?: unknown, form?: boolean }} [options]
   * @returns {Promise<Response>}
   */
  async send(method, url, { headers = {}, body } = {}) {
    try {
      return await fetch(url, {
        method,
        headers: {
          Accept: 'application/json',
          ...headers,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        credentials: 'omit',
      });
    } catch {
      throw new ApiProblem(0, null);
    }
  }

  /** @param {Response} response @returns {Promise<never>} */
  async fail(response) {
    const body = await bodyOf(response).catch(() => null);
    throw new ApiProblem(response.status, typeof body === 'object' ? body : null);
  }

  /** @param {Tokens} tokens @param {CurrentUser} user */
  start(tokens, user) {
    this.session = {
      user,
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      expiresAt: Date.now() + tokens.expires_in * 1000,
    };
    clearTimeout(this.refreshTimer);
    const inMs = Math.max(5_000, tokens.expires_in * 1000 - refreshMarginMs);
    this.refreshTimer = setTimeout(() => void this.refresh(), inMs);
  }

  /** Signs in with the password grant, then reads who that is (GET /users/me). @param {string} email @param {string} password */
  async signIn(email, password) {
    const response = await this.send('POST', '/auth/token', {
      body: { grant_type: 'password', username: email, password },
    });
    if (!response.ok) await this.fail(response);
    /** @type {Tokens} */
    const tokens = await response.json();
    const me = await this.send('GET', '/users/me', {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    if (!me.ok) await this.fail(me);
    this.start(tokens, await me.json());
    this.onSessionChange(this.session);
  }

  /** Refreshes the tokens once, however many requests ask at the same time; false when the session is over. */
  refresh() {
    this.refreshing ??= (async () => {
      const session = this.session;
      if (!session) return false;
      try {
        const response = await this.send('POST', '/auth/token/refresh', {
          body: { refresh_token: session.refreshToken },
        });
        if (!response.ok) {
          this.end('Your session has ended: sign in again.');
          return false;
        }
        if (this.session !== session) return false;
        this.start(await response.json(), session.user);
        return true;
      } catch {
        // No answer: keep the session and try again shortly; the access token may still be valid.
        clearTimeout(this.refreshTimer);
        this.refreshTimer = setTimeout(() => void this.refresh(), 10_000);
        return Date.now() < session.expiresAt;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  /** @param {string} [reason] */
  end(reason) {
    clearTimeout(this.refreshTimer);
    this.session = null;
    this.consistencyToken = null;
    this.onSessionChange(null, reason);
  }

  /** Signs out: revokes the refresh token, which ends the session's access tokens too (RFC 7009). */
  async signOut() {
    const session = this.session;
    if (session) {
      await this.send('POST', '/auth/revoke', {
        body: { token: session.refreshToken, token_type_hint: 'refresh_token' },
      }).catch(() => undefined);
    }
    this.end();
  }

  /**
   * An authenticated request; on 401, one refresh and one more try.
   *
   * @param {string} method
   * @param {string} url
   * @param {{ headers?: Record<string, string>, body?: unknown }} [options]
   */
  async authenticated(method, url, options = {}) {
    for (let attempt = 0; ; attempt++) {
      const session = this.session;
      if (!session) throw new ApiProblem(401, null);
      const response = await this.send(method, url, {
        ...options,
        headers: { ...options.headers, Authorization: `Bearer ${session.accessToken}` },
      });
      if (response.status !== 401 || attempt > 0) return response;
      if (!(await this.refresh())) return response;
    }
  }

  /** @param {Response} response @returns {Promise<Answer>} */
  async answer(response) {
    if (!response.ok) await this.fail(response);
    const consistencyToken = response.headers.get('consistency-token');
    if (consistencyToken !== null)
      this.consistencyToken = laterToken(consistencyToken, this.consistencyToken);
    return {
      status: response.status,
      body: await bodyOf(response),
      etag: response.headers.get('etag'),
      consistencyToken,
      headers: response.headers,
    };
  }

  /** A read of the API; orders and webhooks wait for the console's last write. @param {string} path */
  async get(path) {
    /** @type {Record<string, string>} */
    const headers = {};
    if (this.consistencyToken !== null && readsOwnWrites.test(path))
      headers['Consistency-Token'] = this.consistencyToken;
    return this.answer(await this.authenticated('GET', path, { headers }));
  }

  /**
   * A command of the API (POST, or PATCH and DELETE where the API has them), sent where the console sends
   * commands (its origin, or the query API's forward to the command API), with If-Match when the caller
   * read an ETag.
   *
   * @param {string} path
   * @param {{ body?: unknown, etag?: string | null, method?: 'POST' | 'PATCH' | 'DELETE' }} [options]
   */
  async command(path, { body, etag, method = 'POST' } = {}) {
    /** @type {Record<string, string>} */
    const headers = {};
    if (etag) headers['If-Match'] = etag;
    return this.answer(
      await this.authenticated(method, `${this.commandBase}${path}`, {
        headers,
        ...(body === undefined ? {} : { body }),
      }),
    );
  }

  /** A public read that needs no token (GET /ready, GET /metrics); any status is an answer. @param {string} path */
  async probe(path) {
    const response = await this.send('GET', path, { headers: { Accept: '*/*' } });
    return { status: response.status, body: await bodyOf(response) };
  }
}
