import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.ts';

// Debian's chromium package: .ci/run installs it and sets REQUIRE_CHROMIUM, so there it never skips.
const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const available = existsSync(chromiumPath);
if (!available) {
  const reason = `no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`;
  if (process.env['REQUIRE_CHROMIUM'] === 'true') throw new Error(reason);
  process.stderr.write(`[api-reference] skipped: ${reason}\n`);
}

/** A port free right now, for a PUBLIC_BASE_URL that names the service's own port. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe.skipIf(!available)('GET /docs: the interactive API reference in headless Chromium', () => {
  let service: TestService;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    // As `npm start` has it: the document's server is http://localhost:PORT, while the service logs (and
    // people open) http://127.0.0.1:PORT. The page must send its requests to where it was opened.
    service = await startTestService({ PORT: String(port), PUBLIC_BASE_URL: `http://localhost:${port}` });
    expect(new URL(service.url).hostname).toBe('127.0.0.1');
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('lists every operation of the document and sends a request from the page opened on 127.0.0.1 (the document’s server being localhost), loading nothing from elsewhere', async () => {
    const document = (await (await fetch(`${service.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      servers: { url: string }[];
    };
    // What clients are generated from keeps PUBLIC_BASE_URL; only the page shows its own address.
    expect(document.servers).toEqual([
      { url: new URL(service.url).origin.replace('127.0.0.1', 'localhost') },
    ]);
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    const refused: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(service.url) && !request.url().startsWith('data:')) {
        elsewhere.push(request.url());
      }
    });
    page.on('console', (message) => {
      if (message.type() === 'error') refused.push(message.text());
    });

    await page.goto(`${service.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    const listed = await page.locator('.opblock').evaluateAll((blocks) =>
      blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent ?? '';
        const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method.toLowerCase()} ${path}`;
      }),
    );
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    expect(documented.length).toBeGreaterThan(30);
    expect(listed).toEqual(expect.arrayContaining(documented));

    // Open one operation, fill in its parameter and execute it from the page ("Try it out").
    const operation = page.locator('#operations-products-getProduct');
    await operation.locator('.opblock-summary-control').click();
    // The server the page offers is the one it was opened on.
    expect(await page.locator('.servers select option').allInnerTexts()).toEqual([
      expect.stringContaining(service.url),
    ]);
    await operation.locator('input[placeholder="id"]').fill('1001');
    const answered = page.waitForResponse((response) => response.url() === `${service.url}/products/1001`);
    await operation.locator('button.execute').click();
    const response = await answered;
    expect(response.status()).toBe(200);
    const shown = operation.locator('.live-responses-table tbody .response-col_status').first();
    await expect.poll(() => shown.innerText()).toBe('200');
    expect(await operation.locator('.live-responses-table .microlight').first().innerText()).toContain(
      '"id": 1001',
    );

    process.stdout.write(
      `[api-reference] ${listed.length} blocks listed, covering all ${documented.length} documented operations; GET /products/1001 sent from the page on ${service.url} answered 200; requests elsewhere: ${elsewhere.length}; console errors: ${refused.length}\n`,
    );
    expect(elsewhere).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });
});
