import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { problemKinds } from '../../infrastructure/http/problem-kinds.ts';
import { createServiceDocument } from '../../openapi/service-document.ts';
import { createContractChecker } from '../support/openapi-contract.ts';

const settings = {
  baseUrl: 'https://shop.example/api',
  docsUrl: 'https://docs.shop.example/orders-api',
  errorTypeBase: 'https://errors.shop.example/problems',
  realm: 'order-service',
};
const document = createServiceDocument(settings) as unknown as {
  openapi: string;
  servers: { url: string }[];
  tags: { name: string; description: string; externalDocs?: { url: string } }[];
  paths: Record<
    string,
    Record<
      string,
      { responses: Record<string, { description: string }>; security?: unknown[]; tags?: string[] }
    >
  >;
  webhooks: Record<string, unknown>;
};
const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
);

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(
      document as unknown as Parameters<Validator['validate']>[0],
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('files every operation under exactly one of the tags it declares', () => {
    const declared = document.tags.map((tag) => tag.name);
    const undeclared = operations.filter(
      ({ operation }) => operation.tags?.length !== 1 || !declared.includes(operation.tags[0]!),
    );
    expect(operations.length).toBeGreaterThan(40);
    expect(undeclared.map(({ method, path, operation }) => `${method} ${path}: ${operation.tags}`)).toEqual(
      [],
    );
  });

  it('names {base_url} as its server, and links the orders and products tags to {docs_url}', () => {
    expect(document.servers).toEqual([{ url: settings.baseUrl }]);
    expect(document.tags.map((tag) => tag.name)).toEqual([
      'orders',
      'products',
      'auth',
      'webhooks',
      'operations',
    ]);
    const links = Object.fromEntries(document.tags.map((tag) => [tag.name, tag.externalDocs?.url]));
    expect(links).toEqual({
      orders: `${settings.docsUrl}#/orders`,
      products: `${settings.docsUrl}#/products`,
      auth: undefined,
      webhooks: undefined,
      operations: undefined,
    });
  });

  it('documents 500 on every operation, and 401 with its challenge on every one that needs a token', () => {
    for (const { path, method, operation } of operations) {
      expect(operation.responses['500'], `${method} ${path}`).toBeDefined();
      if ((operation.security ?? []).length > 0) {
        expect(operation.responses['401'], `${method} ${path}`).toMatchObject({
          headers: { 'WWW-Authenticate': { required: true } },
        });
      }
    }
  });

  it('names the preconditions every order command evaluates, and its 412', () => {
    const commands = operations.filter(
      ({ path, method }) => method === 'post' && /^\/orders\/\{orderId\}\/\w+$/.test(path),
    );
    expect(commands.map(({ path }) => path.split('/').at(-1)).sort()).toEqual([
      'cancel',
      'confirm',
      'deliver',
      'payments',
      'ship',
    ]);
    for (const { path, operation } of commands) {
      const headers = (operation as { parameters?: { in: string; name: string }[] }).parameters
        ?.filter((parameter) => parameter.in === 'header')
        .map((parameter) => parameter.name);
      expect(headers, path).toEqual(
        expect.arrayContaining(['If-Match', 'If-Unmodified-Since', 'If-None-Match']),
      );
      expect(operation.responses['412'], path).toBeDefined();
    }
  });

  it('gives problem types under {error_type_base}', () => {
    const text = JSON.stringify(document);
    expect(text).toContain(`${settings.errorTypeBase}/validation-failed`);
    expect(text).toContain(`${settings.errorTypeBase}/invalid-state-transition`);
    expect(document.paths['/problems/{kind}']).toBeDefined();
    expect(Object.keys(problemKinds).length).toBeGreaterThan(10);
  });

  it('describes the webhook events of spec 6', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([
      'order.created',
      'order.status_changed',
      'payment.received',
      'webhook.test',
    ]);
  });
});

describe('the response checker of the HTTP tests', () => {
  const check = createContractChecker(document as never);
  const product = { id: 1001, name: 'Kettle', price: 39.9, updatedAt: '2026-01-01T00:00:00.000Z' };
  const observed = (overrides: Partial<Parameters<typeof check>[0]>) => ({
    method: 'GET',
    url: 'http://localhost/products/1001',
    status: 200,
    headers: new Headers({
      'content-type': 'application/json; charset=utf-8',
      etag: '"abc"',
      'last-modified': 'Thu, 01 Jan 2026 00:00:00 GMT',
      'cache-control': 'public, max-age=300, s-maxage=300',
      'surrogate-key': 'product-1001',
    }),
    body: JSON.stringify(product),
    ...overrides,
  });

  it('passes a response the document describes', () => {
    expect(check(observed({}))).toEqual([]);
  });

  it('reports an undocumented member, a missing header, a wrong media type and an undocumented status', () => {
    expect(check(observed({ body: JSON.stringify({ ...product, stock: 3 }) }))).toEqual([
      expect.stringContaining('must NOT have additional properties'),
    ]);
    expect(check(observed({ headers: new Headers({ 'content-type': 'application/json' }) }))).toEqual(
      expect.arrayContaining([expect.stringContaining('header ETag is required')]),
    );
    expect(check(observed({ headers: new Headers({ 'content-type': 'text/html' }) }))).toEqual(
      expect.arrayContaining([expect.stringContaining('media type text/html')]),
    );
    expect(check(observed({ status: 418 }))).toEqual([expect.stringContaining('418 is not a documented')]);
  });

  it('accepts only a not-found problem where the document has no operation', () => {
    const notFound = {
      url: 'http://localhost/nowhere',
      status: 404,
      headers: new Headers({ 'content-type': 'application/problem+json' }),
      body: '{}',
    };
    expect(check(observed(notFound))).toEqual([]);
    expect(check(observed({ ...notFound, status: 200 }))).toEqual([
      expect.stringContaining('is not in the document'),
    ]);
  });
});
