import type { RequestHandler } from 'express';
import { ApiError } from '../api-error.ts';

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Matches the concrete paths of an OpenAPI path template: /orders/{orderId} matches /orders/42. A parameter
 * ending in `*` (only in paths the document leaves out) spans one segment or more: /assets/{file*} matches
 * /assets/vendor/a.js.
 */
export const templateRegex = (template: string) =>
  new RegExp(
    `^${template
      .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
      .replace(/\{[^}]+\\\*\}/g, '.+')
      .replace(/\{[^}]+\}/g, '[^/]+')}$`,
  );

/**
 * What a resource with these methods answers to the others: OPTIONS with the methods it has (204, Allow),
 * any method it does not have with 405 and Allow (RFC 9110, section 15.5.6). Its own methods pass on to
 * its routes. For a resource already matched: `allowedMethods` below, and a path matcher of its own
 * (the console's forwarded commands).
 */
export const answerOtherMethods = (methodsOfResource: readonly string[]): RequestHandler => {
  const documented = methodsOfResource
    .map((method) => method.toLowerCase())
    .filter((m) => methods.includes(m));
  const allow = [...documented, ...(documented.includes('get') ? ['head'] : []), 'options'].map((method) =>
    method.toUpperCase(),
  );
  const allowed = new Set(allow);
  const header = allow.join(', ');
  return (request, response, next) => {
    if (allowed.has(request.method) && request.method !== 'OPTIONS') return next();
    if (request.method === 'OPTIONS') {
      response.set({ Allow: header, 'Cache-Control': 'no-store' }).status(204).end();
      return;
    }
    throw new ApiError('method-not-allowed', `${request.method} is not supported here.`, {
      headers: { Allow: header },
    });
  };
};

const firstSegment = (path: string) => path.slice(1, (path.indexOf('/', 1) + 1 || path.length + 1) - 1);

/**
 * Answers by the document for a documented path: OPTIONS with the methods it has (204, Allow), any method
 * it does not have with 405 and Allow (RFC 9110, section 15.5.6) instead of a 404 that would say the
 * resource does not exist. Documented methods pass on to the routes. Mounted before every router, so that
 * no router's own OPTIONS answer comes first; resources are indexed by their first path segment, so that a
 * request compares its path with a few templates only. `alsoServed` are paths served with GET that the
 * document leaves out (the reference page's assets).
 */
export const allowedMethods = (
  document: { paths: Record<string, object> },
  alsoServed: readonly string[] = [],
): RequestHandler => {
  const served = Object.fromEntries(alsoServed.map((path) => [path, { get: {} }]));
  const resources = Object.entries({ ...document.paths, ...served })
    .map(([template, operations]) => ({
      template,
      regex: templateRegex(template),
      literal: !template.includes('{'),
      answer: answerOtherMethods(Object.keys(operations)),
    }))
    // A literal path (/users/me) before a template that would also match it.
    .sort((a, b) => Number(b.literal) - Number(a.literal));
  const bySegment = new Map<string, typeof resources>();
  for (const resource of resources) {
    const segment = firstSegment(resource.template);
    bySegment.set(segment, [...(bySegment.get(segment) ?? []), resource]);
  }

  return (request, response, next) => {
    const candidates = bySegment.get(firstSegment(request.path));
    const resource = candidates?.find(({ regex }) => regex.test(request.path));
    if (!resource) return next();
    resource.answer(request, response, next);
  };
};
