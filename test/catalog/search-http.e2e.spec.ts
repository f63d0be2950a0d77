import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemOf } from '../support/http.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

const demoProducts = (
  JSON.parse(readFileSync(new URL('../../catalog/demo-catalog.json', import.meta.url), 'utf8')) as {
    products: { id: number; name: string }[];
  }
).products;

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const search = (query: string, headers: Record<string, string> = {}) =>
  fetch(`${service.url}/search?${query}`, { headers });

describe('GET /search', () => {
  it('finds products by name, case-insensitively, in the page envelope of spec 2.4', async () => {
    const response = await search('q=CUP');
    expect(response.status).toBe(200);
    const expected = demoProducts.filter((p) => /cup/i.test(p.name)).map(({ id, name }) => ({ id, name }));
    expect(expected.length).toBeGreaterThan(0);
    expect(await response.json()).toEqual({
      meta: { total: expected.length, page: 1, perPage: 20 },
      data: expected,
    });
  });

  it('pages through the results', async () => {
    const first = (await (await search('q=e&perPage=5')).json()) as {
      meta: { total: number };
      data: { id: number }[];
    };
    const second = (await (await search('q=e&perPage=5&page=2')).json()) as { data: { id: number }[] };
    expect(first.meta.total).toBeGreaterThan(10);
    expect(first.data).toHaveLength(5);
    expect(second.data).toHaveLength(5);
    expect(second.data[0]!.id).toBeGreaterThan(first.data[4]!.id);
    const beyond = (await (await search('q=e&page=1000')).json()) as { data: unknown[] };
    expect(beyond.data).toEqual([]);
  });

  it('is private, no-cache, with an ETag that answers 304', async () => {
    const response = await search('q=mug');
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    expect((await search('q=mug', { 'If-None-Match': etag })).status).toBe(304);
  });

  it.each([
    ['perPage=100000', 'q=a&perPage=100000', 'perPage'],
    ['perPage=0', 'q=a&perPage=0', 'perPage'],
    ['page=-1', 'q=a&page=-1', 'page'],
    ['page=abc', 'q=a&page=abc', 'page'],
    ['a 10 kB q', `q=${'x'.repeat(10_000)}`, 'q'],
    ['no q', 'page=1', 'q'],
    ['an empty q', 'q=', 'q'],
    ['q given twice', 'q=a&q=b', 'q'],
  ])('answers %s with a 400 problem naming the parameter', async (_case, query, field) => {
    const response = await search(query);
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    expect(problem.errors?.map((e) => e.field)).toEqual([field]);
  });
});
