import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ CATALOG_REFRESH_INTERVAL_MS: '0' });
});
afterAll(() => service.stop());

// The import refuses dates more than 5 minutes ahead of the importing machine's clock, and records one ahead
// of it at the import's time; but that clock may be ahead of the service's (here as far as the date), or a
// store hold what an older version imported: whatever the date, a response never claims a change after its
// own Date.
describe('Last-Modified of catalogue responses dated in the future', () => {
  it.each([
    ['3 minutes', 3 * 60_000],
    ['a day', 86_400_000],
  ])(
    'is never later than the Date of the response, for a product dated %s ahead',
    async (_ahead, aheadMs) => {
      const product = (await service.catalog.getProduct(1002))!;
      const updatedAt = new Date(Date.now() + aheadMs).toISOString();
      await service.catalog.importCatalog(
        { products: [{ ...product, updatedAt }], categories: [] },
        { replace: false, at: new Date(updatedAt) },
      );
      try {
        for (const path of ['/products/1002', '/products/1002/stock']) {
          // The clamp follows the clock, a second at a time: a client's copy revalidates within the second
          // its Date names, so a pair that straddles a second boundary is asked again.
          for (let attempt = 1; ; attempt++) {
            const response = await fetch(`${service.url}${path}`);
            expect(response.status).toBe(200);
            expect(((await response.json()) as { updatedAt: string }).updatedAt).toBe(updatedAt);
            const [lastModified, date] = [
              response.headers.get('last-modified')!,
              response.headers.get('date')!,
            ];
            expect(Date.parse(lastModified), path).toBeLessThanOrEqual(Date.parse(date));
            // The date sent holds as If-Unmodified-Since (compared with what was sent, not the stamp ahead).
            const unmodified = await fetch(`${service.url}${path}`, {
              headers: { 'If-Unmodified-Since': lastModified },
            });
            await unmodified.arrayBuffer();
            // A second boundary between the two requests moves the clamp on: the date sent no longer holds
            // then, as for a client whose copy is a second old; the pair is asked again.
            const straddled = Date.parse(unmodified.headers.get('date')!) > Date.parse(date);
            if (unmodified.status === 412 && straddled) {
              expect(attempt, `${path}: a pair within one second in 5 tries`).toBeLessThan(5);
              continue;
            }
            expect(unmodified.status, `${path} If-Unmodified-Since: ${lastModified}`).toBe(200);
            // ...and still revalidates: the client's copy dated so is current.
            const again = await fetch(`${service.url}${path}`, {
              headers: { 'If-Modified-Since': lastModified },
            });
            expect(Date.parse(again.headers.get('last-modified')!)).toBeLessThanOrEqual(
              Date.parse(again.headers.get('date')!),
            );
            if (again.status === 304) break;
            expect(again.status, path).toBe(200);
            expect(
              Date.parse(again.headers.get('date')!),
              'a 200 only once a second has passed',
            ).toBeGreaterThan(Date.parse(lastModified));
            expect(attempt, `${path}: revalidated within one of 5 seconds`).toBeLessThan(5);
          }
        }
      } finally {
        await service.catalog.importCatalog(
          { products: [product], categories: [] },
          { replace: false, at: new Date() },
        );
      }
    },
  );

  it.each([
    ['30 February', 'Mon, 30 Feb 2099 00:00:00 GMT'],
    ['the wrong weekday', 'Mon, 01 Jan 2099 00:00:00 GMT'],
  ])('ignores an If-Modified-Since naming %s, as not an HTTP-date', async (_what, date) => {
    const response = await fetch(`${service.url}/products/1002`, { headers: { 'If-Modified-Since': date } });
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    // The same instant, written as it prints, is a date: the copy is current.
    const real = new Date(Date.parse(date)).toUTCString();
    const current = await fetch(`${service.url}/products/1002`, { headers: { 'If-Modified-Since': real } });
    await current.arrayBuffer();
    expect(current.status).toBe(304);
  });

  // Taken as dates, the first would be after any product's date (304) and the second before it (412); the
  // real days beside them are dates.
  it.each([
    {
      format: 'RFC 850',
      thirtiethOfFebruary: 'Monday, 30-Feb-38 00:00:00 GMT',
      wrongWeekday: 'Sunday, 01-Jan-00 00:00:00 GMT',
      later: 'Sunday, 28-Feb-38 00:00:00 GMT',
      earlier: 'Saturday, 01-Jan-00 00:00:00 GMT',
    },
    {
      format: 'asctime',
      thirtiethOfFebruary: 'Mon Feb 30 00:00:00 2099',
      wrongWeekday: 'Sun Jan  1 00:00:00 2000',
      later: 'Sat Feb 28 00:00:00 2099',
      earlier: 'Sat Jan  1 00:00:00 2000',
    },
  ])(
    'ignores $format dates naming 30 February or the wrong weekday, as not HTTP-dates',
    async ({ thirtiethOfFebruary, wrongWeekday, later, earlier }) => {
      for (const [header, value] of [
        ['If-Modified-Since', thirtiethOfFebruary],
        ['If-Unmodified-Since', wrongWeekday],
      ] as const) {
        const response = await fetch(`${service.url}/products/1002`, { headers: { [header]: value } });
        await response.arrayBuffer();
        expect(response.status, `${header}: ${value}`).toBe(200);
      }
      const current = await fetch(`${service.url}/products/1002`, {
        headers: { 'If-Modified-Since': later },
      });
      await current.arrayBuffer();
      expect(current.status, later).toBe(304);
      const changed = await fetch(`${service.url}/products/1002`, {
        headers: { 'If-Unmodified-Since': earlier },
      });
      await changed.arrayBuffer();
      expect(changed.status, earlier).toBe(412);
    },
  );

  it('keeps Last-Modified as the product’s own date once that date is past', async () => {
    const product = (await service.catalog.getProduct(1003))!;
    expect(product.recordedAt).toBeUndefined();
    const response = await fetch(`${service.url}/products/1003`);
    expect(response.headers.get('last-modified')).toBe(new Date(product.updatedAt).toUTCString());
  });
});
