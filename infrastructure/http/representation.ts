import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { ApiError } from './api-error.ts';
import { parseHttpDate } from './http-date.ts';
import { setCacheControl } from './cache-control.ts';

/**
 * A response body as sent, with its validators: serialized once, hashed once, and reusable for as long as
 * the resource does not change (the catalogue keeps its hot ones precomputed).
 */
export type Representation = {
  body: Buffer;
  /** Strong: from the exact bytes (and whatever else `strongEtag` was given), or from a version of them. */
  etag: string;
  contentType: string;
  /** HTTP-date, one-second granularity. */
  lastModified?: string;
  /** The same instant in milliseconds, parsed once for a representation kept and sent many times. */
  lastModifiedAt?: number;
  cacheControl?: string;
};

export const strongEtag = (body: Buffer, ...alsoCovering: string[]): string => {
  const hash = createHash('sha256').update(body);
  for (const extra of alsoCovering) hash.update('\0').update(extra);
  return `"${hash.digest('base64url').slice(0, 32)}"`;
};

export const httpDate = (isoOrDate: string | Date): string => new Date(isoOrDate).toUTCString();

type RepresentationOptions = {
  lastModified?: string | Date;
  cacheControl?: string;
  etagAlsoCovers?: string[];
  /**
   * The strong ETag when the resource is versioned otherwise than by the bytes sent (an order's, from its
   * sealed form: ownedEtag): it must change whenever the bytes do. Without it, the hash of the bytes.
   */
  etag?: string;
};

const lastModifiedFields = (lastModified: string) => ({
  lastModified,
  lastModifiedAt: Date.parse(lastModified),
});

export const jsonRepresentation = (value: unknown, options: RepresentationOptions = {}): Representation =>
  jsonTextRepresentation(JSON.stringify(value), options);

/** The same from JSON text already serialized (and, for personal data, opened). */
export const jsonTextRepresentation = (json: string, options: RepresentationOptions = {}): Representation => {
  const body = Buffer.from(json);
  return {
    body,
    etag: options.etag ?? strongEtag(body, ...(options.etagAlsoCovers ?? [])),
    contentType: 'application/json; charset=utf-8',
    ...(options.lastModified === undefined ? {} : lastModifiedFields(httpDate(options.lastModified))),
    ...(options.cacheControl === undefined ? {} : { cacheControl: options.cacheControl }),
  };
};

const entityTag = /\s*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/y;

/** The opaque tags of an If-None-Match list, weak or strong; '*' as itself; undefined when unparseable. */
const parseTagList = (header: string): string[] | '*' | undefined => {
  if (header.trim() === '*') return '*';
  const tags: string[] = [];
  entityTag.lastIndex = 0;
  while (entityTag.lastIndex < header.length) {
    const match = entityTag.exec(header);
    if (!match) return undefined;
    tags.push(match[2]!);
  }
  return tags;
};

/**
 * If-Match (RFC 9110, section 13.1.1) against the current strong ETag: '*' matches any current
 * representation, a list matches when one of its strong tags is identical; weak tags never match.
 */
export const ifMatchHolds = (header: string, currentEtag: string): boolean => {
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  entityTag.lastIndex = 0;
  while (entityTag.lastIndex < trimmed.length) {
    const match = entityTag.exec(trimmed);
    if (!match) return false;
    if (match[1] === undefined && match[2] === currentEtag) return true;
  }
  return false;
};

/** Whether a request that changes state names any precondition: else there is no version to compute. */
export const asksPreconditions = (request: Request): boolean =>
  request.get('If-Match') !== undefined ||
  request.get('If-Unmodified-Since') !== undefined ||
  request.get('If-None-Match') !== undefined;

/**
 * RFC 9110, section 13.2.2, steps 1 and 2, for any method: If-Match when present, else If-Unmodified-Since
 * (against Last-Modified; ignored when either is absent or the date is not an HTTP-date). False: 412.
 */
export const preconditionsHold = (
  request: Request,
  representation: Pick<Representation, 'etag' | 'lastModified'>,
): boolean => {
  const ifMatch = request.get('If-Match');
  if (ifMatch !== undefined) return ifMatchHolds(ifMatch, representation.etag);
  const ifUnmodifiedSince = request.get('If-Unmodified-Since');
  if (ifUnmodifiedSince === undefined || representation.lastModified === undefined) return true;
  const since = parseHttpDate(ifUnmodifiedSince);
  return since === undefined || Date.parse(representation.lastModified) <= since;
};

/**
 * RFC 9110, section 13.1.2, for a method that changes state: If-None-Match `*` fails on any existing
 * resource, a list fails when one of its tags matches (weak comparison). False: 412.
 */
export const noneMatchHolds = (request: Request, currentEtag: string): boolean => {
  const ifNoneMatch = request.get('If-None-Match');
  if (ifNoneMatch === undefined) return true;
  const tags = parseTagList(ifNoneMatch);
  if (tags === '*') return false;
  return tags === undefined || !tags.includes(currentEtag.replace(/^W\//, ''));
};

export const preconditionFailed = (detail: string): ApiError => new ApiError('precondition-failed', detail);

/**
 * For a GET answered without validators (health, readiness, metrics, problem type pages): If-Match holds
 * only as `*` (RFC 9110, section 13.1.1: no entity tag matches a response that has none), and
 * If-Unmodified-Since has no date to compare with. Throws 412 when If-Match does not hold.
 */
export const requirePreconditionsWithoutValidators = (request: Request): void => {
  const ifMatch = request.get('If-Match');
  if (ifMatch !== undefined && ifMatch.trim() !== '*') {
    throw preconditionFailed('This resource has no version: only If-Match: * holds for it.');
  }
};

/**
 * Last-Modified is never later than the response's Date (RFC 9110, section 8.8.2.1), whichever clock stamped
 * the resource. Node writes a Date from a cache refreshed every second: for a resource changed within the
 * last second, this response's Date is written here, from the same reading of the system clock.
 */
const notAfterDate = (
  response: Response,
  lastModified: string,
  modifiedAt = Date.parse(lastModified),
): string => {
  const now = Date.now();
  if (modifiedAt <= now - 1000) return lastModified;
  response.setHeader('Date', httpDate(new Date(now)));
  return httpDate(new Date(Math.min(modifiedAt, now)));
};

/**
 * RFC 9110, section 13.2.2, for GET and HEAD with a 2xx answer: If-None-Match first, with weak comparison;
 * If-Modified-Since only when If-None-Match is absent, and only when valid. True: answer 304.
 */
export const notModified = (
  request: Request,
  representation: Pick<Representation, 'etag' | 'lastModified'>,
) => {
  const ifNoneMatch = request.get('If-None-Match');
  if (ifNoneMatch !== undefined) {
    const tags = parseTagList(ifNoneMatch);
    if (tags === '*') return true;
    return tags !== undefined && tags.includes(representation.etag.replace(/^W\//, ''));
  }
  const ifModifiedSince = request.get('If-Modified-Since');
  if (ifModifiedSince === undefined || representation.lastModified === undefined) return false;
  const since = parseHttpDate(ifModifiedSince);
  return since !== undefined && Date.parse(representation.lastModified) <= since;
};

/**
 * Sends a representation for GET or HEAD: 412 when If-Match or If-Unmodified-Since fails; validators and
 * caching headers always, 304 without a body when the request's preconditions say the client's copy is
 * current, the body otherwise (none for HEAD).
 */
export const sendRepresentation = (
  request: Request,
  response: Response,
  representation: Representation,
): void => {
  // What is sent is what If-Unmodified-Since and If-Modified-Since are compared with: a resource stamped
  // ahead of this clock is sent as modified now, and its sent date must hold against itself.
  const lastModified =
    representation.lastModified === undefined
      ? undefined
      : notAfterDate(response, representation.lastModified, representation.lastModifiedAt);
  const validators = { etag: representation.etag, ...(lastModified ? { lastModified } : {}) };
  if (!preconditionsHold(request, validators)) {
    throw preconditionFailed('The resource does not match your If-Match or If-Unmodified-Since.');
  }
  response.setHeader('ETag', representation.etag);
  if (lastModified !== undefined) response.setHeader('Last-Modified', lastModified);
  if (notModified(request, validators)) {
    setCacheControl(request, response, 304, representation.cacheControl);
    response.status(304).end();
    return;
  }
  setCacheControl(request, response, 200, representation.cacheControl);
  response.setHeader('Content-Type', representation.contentType);
  response.setHeader('Content-Length', representation.body.length);
  response.status(200).end(request.method === 'HEAD' ? undefined : representation.body);
};

/** Serializes, validates and sends a JSON value in one step: for responses not worth keeping. */
export const sendJson = (
  request: Request,
  response: Response,
  value: unknown,
  options: Parameters<typeof jsonRepresentation>[1] = {},
): void => sendRepresentation(request, response, jsonRepresentation(value, options));
