import { z } from 'zod';
import type { ApiOperation } from '../infrastructure/http/openapi/api-operation.ts';
import { problemKinds } from '../infrastructure/http/problem-kinds.ts';
import { serviceIndexCacheControl, serviceIndexSchema } from './service-index.ts';

const checks = z
  .record(z.string(), z.strictObject({ status: z.enum(['ok', 'failing']), detail: z.string().optional() }))
  .meta({
    description: 'Each dependency checked, such as the event log, the read store and each projection.',
  });

/**
 * The console's scripts, styles and icon (query-api/console): served with GET, left out of the document
 * like the reference page's assets. A file may sit in a folder (vendor/preact.js).
 */
export const consoleAssetPaths = ['/console/assets/{version}/{file*}'];

/** What operators and tools use: liveness, readiness, metrics, this document and the problem type pages. */
export const operationsEndpoints = (problemTypesPath: string): ApiOperation[] => [
  {
    method: 'get',
    path: '/',
    operationId: 'getIndex',
    tag: 'operations',
    summary: 'Where to start: links to the API reference, this document, the probes and the catalogue',
    description:
      'The service’s name and a link to each starting point, by name; it changes only with a release.',
    responses: {
      200: {
        description: 'The index.',
        body: serviceIndexSchema,
        headers: { ETag: true, 'Cache-Control': serviceIndexCacheControl },
      },
      304: { description: 'Not modified.', headers: { ETag: true } },
    },
  },
  {
    method: 'get',
    path: '/health',
    operationId: 'getHealth',
    tag: 'operations',
    summary: 'Liveness: the process is up and serving HTTP',
    description:
      'Answers as long as the process serves HTTP, whatever its stores do: for an orchestrator deciding whether to restart it. Never refused by load shedding.',
    responses: {
      200: {
        description: 'Alive.',
        body: z.strictObject({ status: z.literal('ok') }),
        headers: { 'Cache-Control': 'no-store' },
      },
    },
  },
  {
    method: 'get',
    path: '/ready',
    operationId: 'getReadiness',
    tag: 'operations',
    summary: 'Readiness: stores reachable, projections within a bound of the log head',
    description:
      'For a load balancer deciding whether to send it traffic: 200 when every check passes, 503 with the checks otherwise. Never refused by load shedding.',
    responses: {
      200: {
        description: 'Ready to serve.',
        body: z.strictObject({ status: z.literal('ready'), checks }),
        headers: { 'Cache-Control': 'no-store' },
      },
    },
    problems: { 'not-ready': 'A store is unreachable or a projection lags; the checks member says which.' },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tag: 'operations',
    summary: 'Metrics in the Prometheus text format',
    description:
      'HTTP latency by route and status, events appended, projection lag, webhook deliveries by outcome, Kafka relay lag, and the process’s own. With `process`, the metrics of another process of the distributed mode instead, as that process serves them: the query API serves those of the projections process (the relay’s lag) and of the webhook dispatcher (deliveries by outcome) when told where they are (CONSOLE_PROJECTIONS_URL, CONSOLE_WEBHOOK_DISPATCHER_URL), for the console’s health view. On the same path, so whatever keeps /metrics from the outside keeps these too.',
    query: z.object({
      process: z.enum(['projections', 'webhook-dispatcher']).optional().meta({
        description: 'Another process whose metrics this one serves (the query API, when told where it is).',
      }),
    }),
    responses: {
      200: {
        description: 'The metrics.',
        body: z.string(),
        contentType: 'text/plain',
        headers: { 'Cache-Control': 'no-store' },
      },
    },
    problems: {
      'not-found': '`process` names no process whose metrics this one serves.',
      'service-unavailable':
        'The process `process` names did not answer within 2 seconds, could not be reached, or did not answer 200; the detail says which.',
    },
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'operations',
    summary: 'This document (OpenAPI 3.1)',
    description:
      'Its server is PUBLIC_BASE_URL (default http://localhost:PORT). The reference at /docs shows it with the address the page was opened on as its server instead.',
    responses: {
      200: {
        description: 'The document.',
        body: z.looseObject({ openapi: z.string() }),
        headers: { ETag: true, 'Cache-Control': true },
      },
      304: { description: 'Not modified.', headers: { ETag: true } },
    },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getApiReference',
    tag: 'operations',
    summary: 'The interactive API reference (served by the service itself; works offline)',
    description:
      'Swagger UI over /openapi.json, loading nothing from elsewhere. “Try it out” sends its requests to the address the page was opened on, whatever PUBLIC_BASE_URL says.',
    responses: {
      200: {
        description: 'An HTML page.',
        body: z.string(),
        contentType: 'text/html',
        headers: { ETag: true, 'Cache-Control': 'public, no-cache' },
      },
      304: { description: 'Not modified.', headers: { ETag: true } },
    },
  },
  {
    method: 'get',
    path: '/console',
    operationId: 'getConsole',
    tag: 'operations',
    summary: 'The operator console (served by the service itself; works offline)',
    description:
      'A browser application for every role, built on this API: orders and their timelines, the audit log and its export, webhooks and their deliveries, health. It signs in with POST /auth/token; its scripts and styles are under /console/assets/, cacheable for a year.',
    responses: {
      200: {
        description: 'An HTML page.',
        body: z.string(),
        contentType: 'text/html',
        headers: { ETag: true, 'Cache-Control': 'no-cache' },
      },
      304: { description: 'Not modified.', headers: { ETag: true } },
    },
  },
  {
    method: 'get',
    path: `${problemTypesPath}/{kind}`,
    operationId: 'getProblemType',
    tag: 'operations',
    summary: 'What a problem type means: where the `type` URI of a problem leads',
    description:
      'The `type` of every problem answered is `{ERROR_TYPE_BASE}/{kind}`, this path by default: its status, title and what it means.',
    params: z.object({ kind: z.enum(Object.keys(problemKinds) as [string, ...string[]]) }),
    responses: {
      200: {
        description: 'The kind, its status, title and description.',
        body: z.strictObject({
          kind: z.string(),
          status: z.int(),
          title: z.string(),
          description: z.string(),
        }),
        headers: { 'Cache-Control': 'public, max-age=86400' },
      },
    },
    problems: { 'not-found': 'There is no problem kind of this name.' },
  },
];
