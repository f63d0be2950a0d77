import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffStates } from '../../query-api/console/app/lib/state-diff.js';
import { consoleContentSecurityPolicy } from '../../query-api/console/console-routes.ts';
import type { startDistributedTestService } from '../support/distributed-service.ts';
import { postJson } from '../support/http.ts';
import { anAddress, type OrderBody } from '../support/orders.ts';
import { runAdmin } from '../support/run-admin.ts';
import { startTestService, testTarget, type TestService, type TestUser } from '../support/test-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import type { AttemptBody } from '../support/webhooks.ts';

// Debian's chromium package: .ci/run installs it and sets REQUIRE_CHROMIUM, so there it never skips.
const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const available = existsSync(chromiumPath);
if (!available) {
  const reason = `no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`;
  if (process.env['REQUIRE_CHROMIUM'] === 'true') throw new Error(reason);
  process.stderr.write(`[console] skipped: ${reason}\n`);
}

/**
 * Every view is photographed here, whole, at both widths (gitignored); those docs/console.md shows are also
 * taken at the window's size into readme/, to be copied into docs/ when the console changes
 * (scripts/console-screenshots.sh does, made small).
 */
const screenshots = fileURLToPath(new URL('../../test-output/console/', import.meta.url));
const readmeViews: Record<string, string> = {
  '06-order-staff': 'console-order.png',
  '08-timeline-auditor': 'console-timeline.png',
  '09-webhooks': 'console-webhooks.png',
  '10-webhook': 'console-webhook.png',
  '11-health': 'console-health.png',
  // At a phone's width (390 x 844).
  '03-order-customer-phone': 'console-order-phone.png',
};
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const shortId = (id: string) => id.slice(-8);
/** The whole ids of the orders a list shows, in its order (each row's link carries its id as title). */
const listedOrderIds = (page: Page) =>
  page
    .locator('table.orders tbody th a')
    .evaluateAll((links) => links.map((link) => link.getAttribute('title') ?? ''));
/** A phone's window (iPhone 12 to 15): every view is checked at this width too. */
const phone = { width: 390, height: 844 };

/** The value of one series in a Prometheus text, or undefined. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

/** The distributed mode's processes, to read one's own /metrics and to stop one. */
type Processes = Awaited<ReturnType<typeof startDistributedTestService>>['processes'];

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: string[] }[] };

/** axe-core in the page (evaluated through the DevTools protocol: the page's CSP allows no injected script). */
const seriousAccessibilityViolations = async (page: Page) => {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run: (options: object) => Promise<{ violations: unknown[] }> } }
    ).axe;
    return (await axe.run({ resultTypes: ['violations'] })).violations;
  });
  return (violations as AxeViolation[])
    .filter(({ impact }) => impact === 'serious' || impact === 'critical')
    .map(
      ({ id, help, nodes }) => `${id}: ${help} at ${nodes.map(({ target }) => target.join(' ')).join('; ')}`,
    );
};

// Each test walks several views, each checked with axe-core at two widths: more than the project's 30 s on a
// loaded machine.
describe.skipIf(!available)('the console at /console, in headless Chromium', { timeout: 90_000 }, () => {
  let service: TestService;
  let consoleUrl: string;
  let browser: Browser;
  let receiver: WebhookReceiver;
  /** A receiver that is gone (410): its subscription is disabled, and the console says why. */
  let goneReceiver: WebhookReceiver;
  let slowReceiver: WebhookReceiver;
  /** In the distributed mode, its four processes. */
  let processes: Processes | undefined;
  const users = {} as Record<
    'customer' | 'otherCustomer' | 'erasedCustomer' | 'staff' | 'auditor' | 'admin',
    TestUser
  >;
  /** What the pages did that they must never do: CSP refusals, script errors, requests to elsewhere. */
  const misbehaviour: string[] = [];
  const views: string[] = [];
  /** The access token each page sent last. */
  const bearers = new Map<Page, string>();
  /** Cache-Control of each asset the pages loaded, by URL. */
  const assetCaching = new Map<string, string | undefined>();
  let walked: OrderBody;
  let toCancel: OrderBody;
  let othersOrder: OrderBody;
  /** The order of a customer whom an admin erases (DELETE /users/{id}) before the auditor reads the log. */
  let erasedOrder: OrderBody;

  // One sign-in per user for the test's own API calls: the token endpoint limits sign-ins per address.
  const tokens = new Map<TestUser, Promise<string>>();
  const tokenOf = (user: TestUser) => {
    if (!tokens.has(user))
      tokens.set(
        user,
        service.login(user).then(({ access_token }) => access_token),
      );
    return tokens.get(user)!;
  };
  const api = async (user: TestUser, path: string, body?: unknown) => {
    const auth = { Authorization: `Bearer ${await tokenOf(user)}` };
    return body === undefined
      ? fetch(`${service.url}${path}`, { headers: auth })
      : postJson(`${service.url}${path}`, body, auth);
  };
  /**
   * An order command through the API (200), then the order read once with its Consistency-Token: a page
   * opened next shows the order as the command left it.
   */
  const moveOrder = async (user: TestUser, orderId: string, action: string) => {
    const moved = await api(user, `/orders/${orderId}/${action}`, {});
    expect(moved.status, action).toBe(200);
    const read = await fetch(`${service.url}/orders/${orderId}`, {
      headers: {
        Authorization: `Bearer ${await tokenOf(user)}`,
        'Consistency-Token': moved.headers.get('consistency-token')!,
      },
    });
    expect(read.status).toBe(200);
  };
  /**
   * Registers a subscription as an admin and reads it once with its Consistency-Token: a page opened next
   * lists it, whichever process projects it.
   */
  const registerWebhook = async (body: { url: string; events: string[]; description: string }) => {
    const registered = await api(users.admin, '/webhooks', body);
    expect(registered.status).toBe(201);
    const created = (await registered.json()) as { id: string; secret: string };
    const read = await fetch(`${service.url}/webhooks/${created.id}`, {
      headers: {
        Authorization: `Bearer ${await tokenOf(users.admin)}`,
        'Consistency-Token': registered.headers.get('consistency-token')!,
      },
    });
    expect(read.status).toBe(200);
    return created;
  };
  const placeOrder = async (user: TestUser, productId: string) => {
    const address = (await (await api(user, '/users/me/addresses', anAddress)).json()) as { id: string };
    const placed = await api(user, '/orders', {
      items: [{ productId, quantity: 2 }],
      shippingAddressId: address.id,
    });
    expect(placed.status).toBe(201);
    const order = (await placed.json()) as OrderBody;
    // Read once with its Consistency-Token: the read models then hold it when a page lists the orders.
    const consistency = { 'Consistency-Token': placed.headers.get('consistency-token')! };
    const read = await fetch(`${service.url}/orders/${order.id}`, {
      headers: { Authorization: `Bearer ${await tokenOf(user)}`, ...consistency },
    });
    expect(read.status).toBe(200);
    return order;
  };
  const orderNow = async (id: string) =>
    (await (await api(users.staff, `/orders/${id}`)).json()) as OrderBody;

  /** A fresh browser context signed in as `user` through the form, watched for misbehaviour. */
  const signIn = async (user: TestUser, { before }: { before?: (page: Page) => Promise<void> } = {}) => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      acceptDownloads: true,
    });
    // npm test runs this beside a hundred other files on two cores: a page can take longer than Playwright's
    // 30 s default to show what a quiet machine shows in one.
    context.setDefaultTimeout(60_000);
    const page = await context.newPage();
    page.on('pageerror', (error) => misbehaviour.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) misbehaviour.push(message.text());
    });
    page.on('response', (response) => {
      if (response.url().includes('/console/assets/'))
        assetCaching.set(response.url(), response.headers()['cache-control']);
    });
    page.on('request', (request) => {
      const authorization = request.headers()['authorization'];
      if (authorization?.startsWith('Bearer ')) bearers.set(page, authorization.slice('Bearer '.length));
      const url = request.url();
      if (!url.startsWith(consoleUrl) && !url.startsWith('blob:') && !url.startsWith('data:')) {
        misbehaviour.push(`request elsewhere: ${url}`);
      }
    });
    await before?.(page);
    await page.goto(`${consoleUrl}/console`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    return page;
  };

  /**
   * Once a view has loaded, at the desktop's width and at a phone's (390 px): no serious or critical axe
   * violation, nothing wider than the window (no sideways scroll of the page), and a screenshot of each.
   */
  const checkView = async (page: Page, name: string) => {
    await page.locator('#view-heading').waitFor();
    await expect.poll(() => page.locator('p.loading').count()).toBe(0);
    expect(await seriousAccessibilityViolations(page), name).toEqual([]);
    await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
    const readme = readmeViews[name];
    if (readme) await page.screenshot({ path: join(screenshots, 'readme', readme) });
    const desktop = page.viewportSize()!;
    await page.setViewportSize(phone);
    try {
      expect(await seriousAccessibilityViolations(page), `${name} at ${phone.width} px`).toEqual([]);
      // What sticks out, outermost first (the table inside a scrolling .table-wrap does not count).
      const overflowing = (await page.evaluate(`({
        width: document.documentElement.scrollWidth,
        widest: [...document.querySelectorAll('body *')]
          .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 1)
          .filter((element) => !element.parentElement?.closest('.table-wrap') || getComputedStyle(element).position === 'absolute')
          .slice(0, 4)
          .map((element) => element.tagName.toLowerCase() + '.' + String(element.className) + ' ' + Math.round(element.getBoundingClientRect().right)),
      })`)) as { width: number; widest: string[] };
      expect(overflowing.width, `${name} at ${phone.width} px: ${overflowing.widest.join('; ')}`).toBe(
        phone.width,
      );
      await page.screenshot({ path: join(screenshots, `${name}-phone.png`), fullPage: true });
      const readmePhone = readmeViews[`${name}-phone`];
      if (readmePhone) await page.screenshot({ path: join(screenshots, 'readme', readmePhone) });
    } finally {
      await page.setViewportSize(desktop);
    }
    views.push(name);
  };

  /** Signs out from the top bar; the session's access token then stops working (POST /auth/revoke). */
  const signOut = async (page: Page) => {
    const accessToken = bearers.get(page);
    expect(accessToken).toBeDefined();
    const revoked = page.waitForResponse((response) => response.url().endsWith('/auth/revoke'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect((await revoked).status()).toBe(200);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expect
      .poll(
        async () =>
          (await fetch(`${service.url}/users/me`, { headers: { Authorization: `Bearer ${accessToken}` } }))
            .status,
        { timeout: 5_000 },
      )
      .toBe(401);
    await page.context().close();
  };

  beforeAll(async () => {
    mkdirSync(join(screenshots, 'readme'), { recursive: true });
    receiver = await startWebhookReceiver(() => ({ status: 500, body: 'receiver is down for maintenance' }));
    goneReceiver = await startWebhookReceiver(() => ({ status: 410 }));
    // Answers after 6 s (within the 10 s an attempt may take): meanwhile its line's next delivery waits.
    slowReceiver = await startWebhookReceiver(() => ({ status: 204, delayMs: 6000 }));
    service = await startTestService(
      // A failing delivery is dead-lettered after two retries, 100 ms apart: the admin's retry is then seen.
      // Every person here signs in from one address, more often than one person does in a minute: the
      // per-address limit of the token endpoints (30 a minute by default) is raised to let them.
      {
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '100,100',
        AUTH_RATE_LIMIT_PER_ADDRESS: '1000',
      },
      { time: 'real' },
    );
    // The embedded process serves everything; the distributed mode's query API serves the console, opened
    // there directly as docker-compose.yml publishes it, its commands forwarded to the command API.
    consoleUrl = testTarget() === 'distributed' ? service.apiOrigins()[1]! : service.url;
    processes = 'processes' in service ? (service.processes as Processes) : undefined;
    users.customer = await service.addUser(['customer'], 'ann@shop.example');
    users.otherCustomer = await service.addUser(['customer'], 'bob@shop.example');
    users.erasedCustomer = await service.addUser(['customer'], 'cara@shop.example');
    users.staff = await service.addUser(['staff'], 'staff@shop.example');
    users.auditor = await service.addUser(['auditor'], 'auditor@shop.example');
    users.admin = await service.addUser(['admin'], 'admin@shop.example');
    walked = await placeOrder(users.customer, '1001');
    toCancel = await placeOrder(users.customer, '1002');
    othersOrder = await placeOrder(users.otherCustomer, '1003');
    erasedOrder = await placeOrder(users.erasedCustomer, '1005');
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await receiver?.stop();
    await goneReceiver?.stop();
    await slowReceiver?.stop();
    process.stdout.write(
      `[console] ${views.length} views checked with axe-core and photographed in ${screenshots}\n`,
    );
  });

  it('serves the page with its own CSP, no-cache, and its assets under a version', async () => {
    const page = await fetch(`${consoleUrl}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toBe(consoleContentSecurityPolicy);
    const html = await page.text();
    const again = await fetch(`${consoleUrl}/console`, {
      headers: { 'If-None-Match': page.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[0-9a-f]{16}\/[^"]+)"/g)].map(
      ([, path]) => path!,
    );
    expect(assets).toHaveLength(6);
    // (The pages' loads of them are checked at the end: the document leaves the assets out, as /docs's.)
    const otherVersion = assets[0]!.replace(/assets\/[0-9a-f]{16}/, 'assets/0000000000000000');
    expect((await fetch(`${consoleUrl}${otherVersion}`)).status).toBe(404);
  });

  it('lets a customer see only its own orders, cancel one, read its history, stay signed in past an hour and sign out', async () => {
    const page = await signIn(users.customer, {
      before: async (page) => {
        // Fake timers from the start, so that the hour an access token lives can pass in the test.
        await page.clock.install();
        await page.goto(`${consoleUrl}/console`);
        await checkView(page, '01-sign-in');
      },
    });
    await page.getByRole('heading', { name: 'My orders' }).waitFor();
    await page.locator('table.orders tbody tr').nth(1).waitFor();
    const listed = await page.locator('table.orders tbody th').allInnerTexts();
    expect(listed.join(' ')).toContain(shortId(walked.id));
    expect(listed.join(' ')).toContain(shortId(toCancel.id));
    expect(listed.join(' ')).not.toContain(shortId(othersOrder.id));
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    await checkView(page, '02-orders-customer');

    // The API's cache rules stay as they are for the console's requests.
    const list = page.waitForResponse((response) => response.url().includes('/orders?'));
    await page.getByLabel('Status').selectOption('pending');
    expect((await list).headers()['cache-control']).toBe('private, no-cache');

    await page.getByRole('link', { name: new RegExp(shortId(toCancel.id)) }).click();
    await page.getByRole('button', { name: 'Cancel the order…' }).waitFor();
    expect(await page.locator('section.actions button').allInnerTexts()).toEqual(['Cancel the order…']);
    await page.getByLabel('Reason for cancelling (optional)').fill('Ordered twice');
    await page.getByRole('button', { name: 'Cancel the order…' }).click();
    await page.getByRole('button', { name: 'Cancel the order', exact: true }).click();
    await page.getByText('Cancelled.', { exact: true }).waitFor();
    await expect.poll(() => page.locator('h1 .badge').innerText()).toBe('cancelled');
    expect((await orderNow(toCancel.id)).cancellationReason).toBe('Ordered twice');
    await checkView(page, '03-order-customer');

    await page.getByRole('link', { name: 'Timeline of this order' }).click();
    await page.getByRole('heading', { name: /OrderCancelled/ }).waitFor();
    expect(await page.locator('.badge.erased').count()).toBe(0);
    // A customer sees the events of its order, not the states (GET ?revision=N is not the customer's).
    expect(await page.locator('.timeline-entry').count()).toBe(2);
    expect(await page.locator('table.diff').count()).toBe(0);
    await checkView(page, '04-timeline-customer');

    // An hour later the page still works: it refreshed its access token a minute before it expired.
    const before = bearers.get(page);
    const refreshed = page.waitForResponse((response) => response.url().endsWith('/auth/token/refresh'));
    await page.clock.fastForward('59:30');
    expect((await refreshed).status()).toBe(200);
    const relisted = page.waitForResponse((response) => response.url().includes('/orders?'));
    await page.getByRole('link', { name: 'My orders' }).click();
    expect((await relisted).status()).toBe(200);
    expect(bearers.get(page)).not.toBe(before);
    await page.getByRole('heading', { name: 'My orders' }).waitFor();
    await signOut(page);
  });

  it('lets staff walk an order through its lifecycle, and says in words why a move was refused', async () => {
    const page = await signIn(users.staff);
    await page.getByLabel('Status').selectOption('pending');
    await page.locator('table.orders').waitFor();
    await checkView(page, '05-orders-staff');
    // With the keyboard: type the id, Enter; the order's heading then has the focus.
    await page.getByLabel('Order id').focus();
    await page.keyboard.type(walked.id);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: new RegExp(`Order ${shortId(walked.id)}`) }).waitFor();
    await expect.poll(() => page.locator(':focus').getAttribute('id')).toBe('view-heading');
    const status = () => page.locator('h1 .badge').innerText();
    await expect.poll(status).toBe('pending');

    // Only what the API says staff may do to a pending order now.
    expect(await page.locator('section.actions button').allInnerTexts()).toEqual([
      'Confirm',
      'Record payment',
      'Cancel the order…',
    ]);

    // Each command goes with the ETag read; the order is read again with the command's Consistency-Token.
    const command = page.waitForResponse((response) =>
      response.url().endsWith(`/orders/${walked.id}/confirm`),
    );
    const reread = page.waitForRequest(
      (request) => request.method() === 'GET' && request.url().endsWith(`/orders/${walked.id}`),
    );
    await page.getByRole('button', { name: 'Confirm' }).click();
    const confirmed = await command;
    expect(confirmed.status()).toBe(200);
    expect(confirmed.request().headers()['if-match']).toMatch(/^"/);
    expect((await reread).headers()['consistency-token']).toBe(confirmed.headers()['consistency-token']);
    await expect.poll(status).toBe('confirmed');
    expect((await orderNow(walked.id)).status).toBe('confirmed');

    // 412: someone else recorded a deposit meanwhile; the console says so and shows the order as it is now.
    const deposit = await api(users.staff, `/orders/${walked.id}/payments`, {
      amount: { amount: 10, currency: walked.total.currency },
      reference: 'deposit',
    });
    expect(deposit.status).toBe(200);
    await page.getByLabel('Reference').fill('bank-transfer-42');
    expect(await page.getByLabel(/^Amount/).inputValue()).toBe(String(walked.total.amount));
    await page.getByRole('button', { name: 'Record payment' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('Changed by someone else');
    await page.getByRole('cell', { name: 'deposit', exact: true }).waitFor();
    const rest = (Math.round(walked.total.amount * 100) - 1000) / 100;
    await expect.poll(() => page.getByLabel(/^Amount/).inputValue()).toBe(String(rest));
    await page.getByRole('button', { name: 'Record payment' }).click();
    await page.getByText('Payment recorded.', { exact: true }).waitFor();
    // Paid in full: no payment offered any more.
    await expect.poll(() => page.getByRole('button', { name: 'Record payment' }).count()).toBe(0);

    await page.getByLabel('Carrier', { exact: true }).fill('DHL Express');
    await page.getByLabel('Tracking number', { exact: true }).fill('JD014600006251234567');
    await page.getByRole('button', { name: 'Ship' }).click();
    await expect.poll(status).toBe('shipped');
    const shipped = await orderNow(walked.id);
    expect(shipped.shipment).toEqual({
      carrier: 'DHL Express',
      trackingNumber: 'JD014600006251234567',
      trackingUrl: null,
      shippedAt: expect.any(String),
    });
    await page.getByRole('region', { name: 'Shipment' }).getByText('JD014600006251234567').waitFor();
    await page.getByRole('button', { name: 'Mark delivered' }).click();
    await expect.poll(status).toBe('delivered');
    const delivered = await orderNow(walked.id);
    expect(delivered).toMatchObject({ status: 'delivered' });
    expect(delivered.payments.map(({ reference, amount }) => [reference, amount.amount])).toEqual([
      ['deposit', 10],
      ['bank-transfer-42', rest],
    ]);
    await checkView(page, '06-order-staff');
    await signOut(page);
  });

  it('shows an auditor the timeline with the states the API gives, the audit log, and an export that verifies', async () => {
    // An admin erases a customer's personal data (the privacy rules): its address reads "[erased]" from then
    // on, in the API (another process's key cache forgets within seconds), and so in the console.
    const erasure = await fetch(`${service.url}/users/${users.erasedCustomer.id}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${await tokenOf(users.admin)}` },
    });
    expect(erasure.status).toBe(204);
    await expect
      .poll(async () => (await (await api(users.auditor, `/orders/${erasedOrder.id}`)).json()) as OrderBody, {
        timeout: 15_000,
      })
      .toMatchObject({ shippingAddress: { street: '[erased]', city: '[erased]' } });
    const page = await signIn(users.auditor);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.locator('table.audit tbody tr').first().waitFor();
    // Positions as the page writes them: decimal strings, beyond 2^53 on PostgreSQL's log.
    const rowPositions = () =>
      page
        .locator('table.audit tbody tr')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-position') ?? ''));
    const positions = await rowPositions();
    expect(positions.length).toBeGreaterThanOrEqual(9);
    // Newest first (issue 44): the latest page of the log, the latest event at the top.
    expect(positions).toEqual([...positions].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1)));
    await checkView(page, '07-audit');
    // A jump to a position: that event at the top, older ones below.
    const target = positions[3]!;
    await page.getByLabel('Go to position').fill(target);
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    await expect.poll(async () => (await rowPositions())[0]).toBe(target);
    // A correlation id followed: the events of that one request, and nothing else.
    const first = page.locator('table.audit tbody tr').first();
    await first.locator('summary').click();
    const correlation = await first.locator('details a code').innerText();
    await first.locator('details a').click();
    await page.getByText(`The events of correlation id ${correlation}`).waitFor();
    await expect.poll(async () => (await rowPositions()).length).toBeGreaterThanOrEqual(1);
    await page.getByRole('link', { name: 'Newest first' }).click();
    await expect.poll(async () => (await rowPositions())[0]).toBe(positions[0]);

    // The hash-chained export, built in the page: it verifies with the CLI, and holds what the CLI's holds.
    await page.getByRole('button', { name: 'Export the log' }).click();
    const finalHash = await page.locator('.final-hash').innerText();
    expect(finalHash).toMatch(/^[0-9a-f]{64}$/);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: /^Download / }).click();
    const folder = mkdtempSync(join(tmpdir(), 'console-export-'));
    try {
      const file = join(folder, 'console.ndjson');
      await (await download).saveAs(file);
      const verified = await runAdmin(['events:verify-export', file], service.adminEnv);
      expect(verified.code, verified.stderr).toBe(0);
      expect(verified.stdout).toContain(`final hash ${finalHash}`);
      const exported = await runAdmin(['events:export'], service.adminEnv);
      expect(exported.code, exported.stderr).toBe(0);
      writeFileSync(join(folder, 'cli.ndjson'), exported.stdout);
      const records = (text: string) =>
        text
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { record: Record<string, unknown> }).record);
      const fromCli = records(exported.stdout).map((record) => {
        if (record['kind'] !== 'event') return record;
        const {
          causationId: _causationId,
          schemaVersion: _schemaVersion,
          ...metadata
        } = record['metadata'] as Record<string, unknown>;
        return { ...record, metadata };
      });
      const fromConsole = records(readFileSync(file, 'utf8'));
      expect(fromConsole.slice(1)).toEqual(fromCli.slice(1));
      expect(fromConsole[0]).toMatchObject({
        kind: 'header',
        format: fromCli[0]!['format'],
        source: 'GET /audit/events',
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }

    // The filter by type, and from an event to its order's timeline.
    await page.getByLabel('Event type').selectOption('OrderShipped');
    await expect
      .poll(() => page.locator('table.audit tbody tr td:nth-child(3)').allInnerTexts())
      .toEqual(['OrderShipped']);
    await page.getByRole('link', { name: new RegExp(`Order ${shortId(walked.id)}`) }).click();
    await page.getByRole('heading', { name: /Timeline of order/ }).waitFor();
    await page.locator('.timeline-entry').nth(5).waitFor();

    // Each state shown is the API's (GET /orders/{id}?revision=N), and each change is what differs from N-1.
    const events = (await (await api(users.auditor, `/orders/${walked.id}/events`)).json()) as {
      revision: number;
    }[];
    const states = await Promise.all(
      events.map(
        async ({ revision }) =>
          (await (await api(users.auditor, `/orders/${walked.id}?revision=${revision}`)).json()) as Record<
            string,
            unknown
          >,
      ),
    );
    expect(states.map(({ status }) => status)).toEqual([
      'pending',
      'confirmed',
      'confirmed',
      'confirmed',
      'shipped',
      'delivered',
    ]);
    for (const [revision, state] of states.entries()) {
      const entry = page.locator(`.timeline-entry[data-revision="${revision}"]`);
      if (revision === 0) {
        expect(await entry.locator('h3').innerText()).toBe('The order as placed');
        continue;
      }
      const shown = await entry
        .locator('table.diff tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) => [row.getAttribute('data-path'), row.querySelector('ins')?.textContent ?? '']),
        );
      const expected = diffStates(states[revision - 1], state).map(({ path, after }) => [
        path,
        after === undefined ? '—' : JSON.stringify(after),
      ]);
      expect(shown, `revision ${revision}`).toEqual(expected);
    }
    // Each table of changes stays in its column (the shipment's one long value included), not under the state.
    const overflowing = await page.locator('.timeline-entry section.changes').evaluateAll((sections) =>
      sections
        .filter((section) => {
          const table = section.querySelector('table.diff');
          return table && table.getBoundingClientRect().right > section.getBoundingClientRect().right + 1;
        })
        .map((section) => section.closest('.timeline-entry')!.getAttribute('data-revision')),
    );
    expect(overflowing, 'revisions whose table of changes overflows its column').toEqual([]);
    expect(await page.getByRole('button', { name: /Confirm|Ship|Cancel|Record payment|Retry/ }).count()).toBe(
      0,
    );
    // Each event in a sentence, money in its currency (issue 44: readable words).
    await page.getByText('Payment of €10.00 received (reference deposit).').waitFor();
    await checkView(page, '08-timeline-auditor');

    // An auditor's order view: the order as it is now, and no action.
    await page.getByRole('link', { name: new RegExp(`Order ${shortId(walked.id)}$`) }).click();
    await page.getByRole('heading', { name: 'Summary' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Actions' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);

    // The erased customer's order: its address shows as erased, in the order and in its timeline.
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Orders', exact: true })
      .click();
    // The list drawn first, as a user sees it before typing: the search box is then the list's own.
    await page.locator('table.orders').waitFor();
    await page.getByLabel('Order id').fill(erasedOrder.id);
    await page.keyboard.press('Enter');
    await page
      .getByRole('heading', { name: 'Summary' })
      .waitFor()
      .catch(async (error: unknown) => {
        throw new Error(
          `the erased customer's order did not show; the page read:\n${await page.locator('main').innerText()}`,
          {
            cause: error,
          },
        );
      });
    const address = page.getByRole('region', { name: 'Shipping address' });
    await expect.poll(() => address.locator('.badge.erased').count()).toBe(4);
    // Labels, not field names (issue 44: readable words).
    expect(await address.locator('dt').allInnerTexts()).toEqual(['Street', 'City', 'Postal code', 'Country']);
    expect(await address.innerText()).not.toContain(anAddress.street);
    await page.getByRole('link', { name: 'Timeline of this order' }).click();
    const placed = page.locator('.timeline-entry[data-revision="0"]');
    await placed.getByRole('heading', { name: /OrderPlaced/ }).waitFor();
    // The event's data and the state after it: street, city, postal code and country, each erased.
    await expect.poll(() => placed.locator('.badge.erased').count()).toBe(9);
    expect(await placed.innerText()).not.toContain(anAddress.street);
    await checkView(page, '12-timeline-erased');
    await signOut(page);
  });

  it('pages the orders 20 at a time, forward and back', async () => {
    const dan = await service.addUser(['customer'], 'dan@shop.example');
    const address = (await (await api(dan, '/users/me/addresses', anAddress)).json()) as { id: string };
    const placed: string[] = [];
    let consistencyToken = '';
    for (let index = 0; index < 21; index++) {
      const answer = await api(dan, '/orders', {
        items: [{ productId: '1001', quantity: 1 }],
        shippingAddressId: address.id,
      });
      expect(answer.status).toBe(201);
      placed.push(((await answer.json()) as OrderBody).id);
      consistencyToken = answer.headers.get('consistency-token')!;
    }
    // Read once with the last one's Consistency-Token: the read models then hold all 21.
    const read = await fetch(`${service.url}/orders/${placed.at(-1)}`, {
      headers: { Authorization: `Bearer ${await tokenOf(dan)}`, 'Consistency-Token': consistencyToken },
    });
    expect(read.status).toBe(200);

    const page = await signIn(dan);
    await page.getByRole('heading', { name: 'My orders' }).waitFor();
    const listed = () => listedOrderIds(page);
    await expect.poll(async () => (await listed()).length).toBe(20);
    const first = await listed();
    // Newest first: the first page holds the last 20 placed.
    expect([...first].sort()).toEqual(placed.slice(1).sort());
    expect(await page.locator('.pager [aria-disabled="true"]').innerText()).toBe('← Previous');

    await page.getByRole('link', { name: 'Next →' }).click();
    await expect.poll(listed).toEqual([placed[0]]);
    expect(await page.locator('.pager [aria-disabled="true"]').innerText()).toBe('Next →');

    await page.getByRole('link', { name: '← Previous' }).click();
    await expect.poll(listed).toEqual(first);
    await signOut(page);
  });

  it('lets an admin retry a dead-lettered delivery and see the new attempt, send a test and rotate the secret', async () => {
    // A subscription whose receiver is gone (410 to a test event): disabled, with the reason the console shows.
    const goneId = (
      await registerWebhook({
        url: goneReceiver.url,
        events: ['payment.received'],
        description: 'Old CRM (retired)',
      })
    ).id;
    const test = await fetch(`${service.url}/webhooks/${goneId}/test`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await tokenOf(users.admin)}` },
    });
    expect(test.status).toBe(202);
    await expect
      .poll(async () => (await (await api(users.admin, `/webhooks/${goneId}`)).json()) as object, {
        timeout: 20_000,
      })
      .toMatchObject({ active: false, disabledReason: 'The receiver answered 410 Gone.' });

    const subscription = await registerWebhook({
      url: receiver.url,
      events: ['order.created'],
      description: 'ERP (down for maintenance)',
    });
    // The subscription takes the events after its registration: a new order, delivered three times (500), then dead-lettered.
    const deadOrder = await placeOrder(users.otherCustomer, '1004');
    const attempts = async () =>
      (
        (await (await api(users.admin, `/webhooks/${subscription.id}/deliveries?perPage=100`)).json()) as {
          data: AttemptBody[];
        }
      ).data;
    await expect
      .poll(async () => (await attempts()).some(({ deadLettered }) => deadLettered), { timeout: 20_000 })
      .toBe(true);
    const before = (await attempts()).length;

    // Fake timers in the page (running at the real pace), so that the health view's next reading can be had at once.
    const page = await signIn(users.admin, { before: (page) => page.clock.install() });
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('link', { name: receiver.url }).waitFor();
    expect(await page.getByRole('row', { name: /active/ }).count()).toBe(1);
    const goneRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: goneReceiver.url, exact: true }) });
    expect(await goneRow.locator('.badge.state-disabled').innerText()).toBe('disabled');
    // Its last attempt: the 410 (issue 44: the last outcome per endpoint, so failing ones stand out).
    expect(await goneRow.locator('.last-outcome .badge').innerText()).toBe('gone');
    expect(await goneRow.innerText()).toContain('The receiver answered 410 Gone.');
    await checkView(page, '09-webhooks');

    // The disabled one: no test event offered (it would be cancelled at once), but enabling it again (issue 44, bug 6).
    await page.getByRole('link', { name: goneReceiver.url, exact: true }).click();
    await page.getByRole('heading', { name: 'Subscription' }).waitFor();
    await page.getByRole('button', { name: 'Enable again' }).waitFor();
    expect(await page.getByRole('button', { name: 'Send a test event' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Enable again' }).click();
    await page.getByRole('button', { name: 'Send a test event' }).waitFor();
    expect(await (await api(users.admin, `/webhooks/${goneId}`)).json()).toMatchObject({
      active: true,
      disabledReason: null,
    });
    // A test event the receiver answers 410 again: the page shows it disabled once the attempt shows,
    // without a reload, and says only the latest action's outcome.
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText(/^New attempt: webhook\.test, attempt 1, gone \(410\)/).waitFor();
    await page.getByRole('button', { name: 'Enable again' }).waitFor();
    expect(await page.getByRole('button', { name: 'Send a test event' }).count()).toBe(0);
    expect(await page.getByText('Enabled: new events are delivered again', { exact: false }).count()).toBe(0);
    await page.getByRole('button', { name: 'Enable again' }).click();
    await page.getByText('Enabled: new events are delivered again', { exact: false }).waitFor();
    expect(await page.getByText('A test event of webhook.test was requested.').count()).toBe(0);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).first().click();
    await page.getByRole('link', { name: receiver.url }).click();
    await page
      .locator('table.attempts tbody tr')
      .nth(before - 1)
      .waitFor();
    expect(await page.locator('.badge.dead-lettered').count()).toBe(1);
    await page.locator('table.attempts summary', { hasText: 'Body' }).first().click();
    await page.getByText('receiver is down for maintenance').first().waitFor();
    expect(await page.getByRole('img', { name: /Delivery outcomes over time/ }).count()).toBe(1);
    // Its y-axis reads whole numbers, none twice; a span of time is a bar, not the whole plot (issue 44, bug 7).
    const ticks = await page.locator('svg.outcome-chart .grid text').allTextContents();
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ticks).size, ticks.join(', ')).toBe(ticks.length);
    const barWidths = await page
      .locator('svg.outcome-chart rect.bar')
      .evaluateAll((bars) => bars.map((bar) => Number(bar.getAttribute('width'))));
    expect(Math.max(...barWidths)).toBeLessThanOrEqual(640 / 12);
    // Legible at a phone's width too: its words at least 9 px high on the screen.
    await page.setViewportSize(phone);
    const labelHeights = await page
      .locator('svg.outcome-chart text')
      .evaluateAll((labels) => labels.map((label) => label.getBoundingClientRect().height));
    expect(Math.min(...labelHeights)).toBeGreaterThanOrEqual(9);
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole('button', { name: /^Retry delivery of order.created/ }).click();
    await page
      .getByText(/New attempt: order\.created, attempt \d+, failed \(500\)\./)
      .waitFor({ timeout: 20_000 });
    expect((await attempts()).length).toBeGreaterThan(before);
    // The retry goes on counting the delivery's attempts, and only its newest attempt plans a next one (issue 44, bug 5).
    await page.locator('table.attempts tbody tr').nth(before).waitFor();
    const rows = await page.locator('table.attempts tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        delivery: tr.getAttribute('data-delivery'),
        attempt: tr.querySelector('td:nth-child(3)')?.textContent?.trim(),
        next: tr.querySelector('td:nth-child(7)')?.textContent?.trim(),
      })),
    );
    const retried = rows.filter(({ delivery }) => delivery === rows[0]!.delivery);
    expect(retried.map(({ attempt }) => Number(attempt))).toEqual(
      retried.map((_, index) => retried.length - index),
    );
    expect(retried.slice(1).map(({ next }) => next)).toEqual(retried.slice(1).map(() => 'replaced'));
    // Each delivery of the order's one event, the admin's retry included, reached the receiver.
    const created = receiver.received.filter(({ json }) => json.type === 'order.created');
    expect(created.length).toBeGreaterThan(3);
    expect(new Set(created.map(({ json }) => json.data['id']))).toEqual(new Set([deadOrder.id]));

    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page
      .getByText(/New attempt: webhook\.test, attempt \d+, failed \(500\)\./)
      .waitFor({ timeout: 20_000 });

    await page.getByRole('button', { name: 'Rotate the secret…' }).click();
    await page.getByRole('button', { name: 'Rotate now' }).click();
    const secret = await page.locator('.secret-value').innerText();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(subscription.secret);
    await checkView(page, '10-webhook');

    // Health: readiness and metrics, read again every 5 seconds.
    await page.getByRole('link', { name: 'Health' }).click();
    await page.getByRole('heading', { name: /Readiness/ }).waitFor();
    expect(await page.getByRole('heading', { name: /Readiness/ }).innerText()).toMatch(/Readiness: ?ready/);
    await page
      .getByRole('row', { name: /\/orders\/:orderId/ })
      .first()
      .waitFor();
    await page.getByRole('row', { name: /read model: orders/ }).waitFor();
    const firstReading = await page.locator('.lead time').getAttribute('datetime');
    const reread = page.waitForResponse((response) => response.url().endsWith('/metrics'));
    await page.clock.fastForward('00:05');
    await reread;
    await expect.poll(() => page.locator('.lead time').getAttribute('datetime')).not.toBe(firstReading);
    await page
      .getByText(/^\d+\.\d$/)
      .first()
      .waitFor(); // requests per second, from two readings
    // The relay's lag: the embedded process's own; in the distributed mode the projections process's,
    // which the query API serves as GET /metrics?process=projections. At rest, nothing is left to relay.
    const relayRow = page
      .locator('section[aria-labelledby="lag-heading"]')
      .getByRole('row', { name: /relay to the bus/ });
    const relay = relayRow.getByRole('cell');
    await expect.poll(() => relay.innerText(), { timeout: 15_000 }).toBe('0');
    if (processes) {
      expect(await relayRow.getByRole('rowheader').innerText()).toBe(
        'relay to the bus (projections process)',
      );
      const own = await (await fetch(`${processes.urlOf('projections')}/metrics`)).text();
      expect(sample(own, 'kafka_relay_lag_events')).toBe(0);
    }
    // The delivery counts: the embedded process's own; in the distributed mode the webhook dispatcher's.
    const deliveries = page.locator('section[aria-labelledby="deliveries-heading"]');
    const attemptsOf = async (outcome: string) =>
      Number(
        await deliveries
          .getByRole('row', { name: new RegExp(`^${outcome}`) })
          .getByRole('cell')
          .innerText(),
      );
    await expect.poll(() => attemptsOf('dead-lettered'), { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    // The gone receiver's two 410s: the first test event's, and the one sent after enabling it again.
    expect(await attemptsOf('gone')).toBe(2);
    expect(await attemptsOf('failed')).toBeGreaterThanOrEqual(2);
    const others = page.locator('section[aria-labelledby="processes-heading"]');
    if (processes) {
      expect(await others.locator('tr[data-process] .badge').allInnerTexts()).toEqual([
        'reachable',
        'reachable',
      ]);
    } else {
      expect(await others.count()).toBe(0);
    }
    await checkView(page, '11-health');

    if (processes) {
      // The projections process stops: the view says it is not reachable, and shows no stale figure.
      const address = new URL(processes.urlOf('projections')).host;
      await processes.stop('projections');
      await page.clock.fastForward('00:05');
      const projectionsRow = others.locator('tr[data-process="projections"]');
      await expect.poll(() => projectionsRow.innerText(), { timeout: 15_000 }).toContain('not reachable');
      expect(await projectionsRow.innerText()).toContain('The projections process could not be reached.');
      expect(await relay.innerText()).toBe('not reachable');
      expect(await others.locator('tr[data-process="webhook-dispatcher"] .badge').innerText()).toBe(
        'reachable',
      );
      expect(await page.locator('main').innerText()).not.toContain(address);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await page.screenshot({ path: join(screenshots, '11-health-projections-down.png'), fullPage: true });
      // Back for the tests that follow, which read the read models it keeps.
      await processes.start('projections');
    }
    await signOut(page);
  });

  it('offers on each order exactly the actions the API names for its caller, and asks before cancelling (issue 44, bugs 2 and 3)', async () => {
    const shippedOrder = await placeOrder(users.customer, '1001');
    for (const action of ['confirm', 'ship']) {
      await moveOrder(users.staff, shippedOrder.id, action);
    }
    const cancelledOrder = await placeOrder(users.customer, '1002');
    await moveOrder(users.staff, cancelledOrder.id, 'cancel');
    const page = await signIn(users.staff);
    const actionButtons = () => page.locator('section.actions button').allInnerTexts();
    const open = async (id: string) => {
      await page.goto(`${consoleUrl}/console#/orders/${id}`);
      await page.getByRole('heading', { name: 'Summary' }).waitFor();
    };

    // Shipped: only delivering, and a payment while something is outstanding; no confirm, ship or cancel.
    await open(shippedOrder.id);
    await expect.poll(() => page.locator('h1 .badge').innerText()).toBe('shipped');
    expect(await actionButtons()).toEqual(['Mark delivered', 'Record payment']);
    // Cancelled: nothing to do, and no payment offered (its payments would be owed back).
    await open(cancelledOrder.id);
    await expect.poll(() => page.locator('h1 .badge').innerText()).toBe('cancelled');
    expect(await page.getByRole('heading', { name: 'Actions' }).count()).toBe(0);
    expect(await page.getByLabel(/^Amount/).count()).toBe(0);

    // Cancelling asks first, saying what cannot be undone; keeping the order changes nothing.
    const pending = await placeOrder(users.customer, '1001');
    await open(pending.id);
    await page.getByRole('button', { name: 'Cancel the order…' }).click();
    await page.getByText('A cancelled order cannot be confirmed, shipped or reopened').waitFor();
    await page.getByRole('button', { name: 'Keep the order' }).click();
    expect((await orderNow(pending.id)).status).toBe('pending');
    await page.getByRole('button', { name: 'Cancel the order…' }).click();
    await page.getByRole('button', { name: 'Cancel the order', exact: true }).click();
    await expect.poll(() => page.locator('h1 .badge').innerText()).toBe('cancelled');
    expect(await page.getByRole('heading', { name: 'Actions' }).count()).toBe(0);
    await page.context().close();
  });

  it('starts each order and each subscription afresh: nothing typed or answered on one shows on the next (issue 44, bug 1)', async () => {
    const first = await placeOrder(users.customer, '1001');
    const second = await placeOrder(users.customer, '1002');
    for (const order of [first, second]) {
      await moveOrder(users.staff, order.id, 'confirm');
    }
    const page = await signIn(users.staff);
    await page.goto(`${consoleUrl}/console#/orders/${first.id}`);
    await page.getByLabel('Carrier', { exact: true }).fill('DHL Express');
    await page.getByLabel('Reference').fill('first-order-transfer');
    await page.getByRole('button', { name: 'Record payment' }).click();
    await page.getByText('Payment recorded.', { exact: true }).waitFor();
    await page.getByLabel('Carrier', { exact: true }).fill('DHL Express');

    // A pasted link to the other order: its own page, empty, with no answer of the first one's.
    await page.goto(`${consoleUrl}/console#/orders/${second.id}`);
    await page.getByRole('heading', { name: new RegExp(`Order ${shortId(second.id)}`) }).waitFor();
    await page.getByLabel('Carrier', { exact: true }).waitFor();
    expect(await page.getByLabel('Carrier', { exact: true }).inputValue()).toBe('');
    expect(await page.getByLabel('Reference').inputValue()).toBe('');
    expect(await page.getByText('Payment recorded.', { exact: true }).count()).toBe(0);
    // Back: the first order, afresh too.
    await page.goBack();
    await page.getByRole('heading', { name: new RegExp(`Order ${shortId(first.id)}`) }).waitFor();
    await page.getByLabel('Carrier', { exact: true }).waitFor();
    expect(await page.getByLabel('Carrier', { exact: true }).inputValue()).toBe('');
    await page.context().close();
  });

  it('follows a link taken while it is still mounting after sign-in, before it listens for a change of address', async () => {
    // The moment the signed-in console is on the page, before its effects run: the address changes then, as
    // a pasted link does on a loaded machine. Its hashchange comes before anything listens for it.
    const target = `#/orders/${othersOrder.id}`;
    const page = await signIn(users.staff, {
      before: async (page) => {
        await page.addInitScript({
          content: `new MutationObserver((_, observer) => {
            if (!document.querySelector('.main-nav')) return;
            observer.disconnect();
            location.hash = ${JSON.stringify(target)};
          }).observe(document, { childList: true, subtree: true });`,
        });
      },
    });
    await page.getByRole('heading', { name: new RegExp(`Order ${shortId(othersOrder.id)}`) }).waitFor();
    await page.getByRole('heading', { name: 'Summary' }).waitFor();
    expect(new URL(page.url()).hash).toBe(target);
    await page.context().close();
  });

  it("shows a customer neither the audit log nor the service's internals (issue 44, bug 8)", async () => {
    const page = await signIn(users.customer);
    await page.goto(`${consoleUrl}/console#/audit`);
    await page.getByText('The audit log is for auditors and admins.').waitFor();
    expect(await page.getByRole('button', { name: 'Export the log' }).count()).toBe(0);
    expect(await page.getByLabel('Event type').count()).toBe(0);
    await page.goto(`${consoleUrl}/console#/webhooks`);
    await page.getByText('Webhooks are for admins.').waitFor();
    await page.goto(`${consoleUrl}/console#/health`);
    await page.getByRole('heading', { name: /Readiness/ }).waitFor();
    for (const heading of ['lag-heading', 'traffic-heading', 'deliveries-heading', 'routes-heading']) {
      expect(await page.locator(`section[aria-labelledby="${heading}"]`).count(), heading).toBe(0);
    }
    await page.context().close();
  });

  it("opens an order by the short id the list shows, a full id, or the customer's e-mail (issue 44, bug 4)", async () => {
    const page = await signIn(users.staff);
    await page.locator('table.orders').waitFor();
    const open = async (typed: string) => {
      await page.getByLabel('Order id').fill(typed);
      await page.getByLabel('Order id').press('Enter');
    };
    await open(shortId(othersOrder.id).toUpperCase());
    await page.getByRole('heading', { name: new RegExp(`Order ${shortId(othersOrder.id)}`) }).waitFor();
    await page.getByRole('heading', { name: 'Summary' }).waitFor();

    await page.goto(`${consoleUrl}/console#/orders`);
    await page.locator('table.orders').waitFor();
    await open(users.otherCustomer.email);
    await page.getByText(`Orders of ${users.otherCustomer.email}.`).waitFor();
    await expect
      .poll(async () => (await listedOrderIds(page)).sort())
      .toEqual(
        ((await (await api(users.otherCustomer, '/orders?perPage=100')).json()) as { data: OrderBody[] }).data
          .map(({ id }) => id)
          .sort(),
      );

    await page.goto(`${consoleUrl}/console#/orders`);
    await page.locator('table.orders').waitFor();
    await open('00000000');
    await page.getByText('No order you may see begins or ends with 00000000.').waitFor();

    // By the start of its id, as a person copies one: that order; a start several share, their list.
    await page.goto(`${consoleUrl}/console#/orders`);
    await page.locator('table.orders').waitFor();
    await open(othersOrder.id.slice(0, 13).toUpperCase());
    await page.getByRole('heading', { name: new RegExp(`Order ${shortId(othersOrder.id)}`) }).waitFor();
    const listed = ((await (await api(users.staff, '/orders?perPage=100')).json()) as { data: OrderBody[] })
      .data;
    // UUIDv7s begin with their time: orders placed within seconds share their first 8 hex digits.
    const sharedStart = othersOrder.id.slice(0, 8);
    const sharing = listed.filter(({ id }) => id.startsWith(sharedStart)).map(({ id }) => id);
    await page.goto(`${consoleUrl}/console#/orders`);
    await page.locator('table.orders').waitFor();
    await open(`${sharedStart}-`);
    if (sharing.length > 1) {
      await page.getByText(`Orders whose id begins with ${sharedStart}-.`).waitFor();
      await expect.poll(async () => (await listedOrderIds(page)).sort()).toEqual(sharing.slice(0, 20).sort());
    } else {
      await page.getByRole('heading', { name: new RegExp(`Order ${shortId(othersOrder.id)}`) }).waitFor();
    }

    // Orders placed in a span of days (GET /orders?placedFrom=&placedBefore=): none from tomorrow, all of today.
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('Placed on or after').fill(tomorrow);
    await page.getByText('No orders match these filters.').waitFor();
    await page.getByLabel('Placed on or after').fill(today);
    await page.getByLabel('Placed on or before').fill(today);
    await page.locator('table.orders tbody tr').first().waitFor();
    await page.context().close();
  });

  it("names each order's customer, links to its orders, and keeps to a span of totals (issue 44)", async () => {
    const newest = await placeOrder(users.otherCustomer, '1003');
    // Erasing again changes nothing (the auditor's test erased her first): her orders name no one.
    const erasure = await fetch(`${service.url}/users/${users.erasedCustomer.id}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${await tokenOf(users.admin)}` },
    });
    expect(erasure.status).toBe(204);
    const page = await signIn(users.staff);
    const rowOf = (orderId: string) =>
      page.locator('table.orders tbody tr', { has: page.locator(`th a[title="${orderId}"]`) });
    await rowOf(newest.id).waitFor();
    expect(await rowOf(newest.id).locator('.customer-name').innerText()).toBe('Test customer');
    const email = rowOf(newest.id).locator('a.customer-email');
    expect(await email.innerText()).toBe(users.otherCustomer.email);

    await page.goto(`${consoleUrl}/console#/orders?idEndsWith=${shortId(erasedOrder.id)}`);
    await rowOf(erasedOrder.id).waitFor();
    expect(await rowOf(erasedOrder.id).locator('td.optional').first().innerText()).toBe('ERASED');
    expect(await rowOf(erasedOrder.id).locator('a.customer-email').count()).toBe(0);

    // The e-mail leads to that customer's orders.
    await page.goto(`${consoleUrl}/console#/orders`);
    await rowOf(newest.id).locator('a.customer-email').click();
    await page.getByText(`Orders of ${users.otherCustomer.email}.`).waitFor();
    await page.getByRole('link', { name: 'Show every order' }).click();

    // Totals from and to one amount: the orders the API finds so, each of that total.
    const amount = newest.total.amount;
    const found = (await (
      await api(users.staff, `/orders?cursor=&perPage=20&minTotal=${amount}&maxTotal=${amount}`)
    ).json()) as { data: OrderBody[] };
    expect(found.data.length).toBeGreaterThan(0);
    const totalFrom = page.getByLabel('Total from');
    const totalTo = page.getByLabel('to', { exact: true });
    await totalFrom.fill(String(amount));
    await totalTo.fill(String(amount));
    await totalTo.press('Enter');
    await expect
      .poll(() => listedOrderIds(page), { timeout: 15_000 })
      .toEqual(found.data.map(({ id }) => id));
    expect(new Set(await page.locator('table.orders tbody td.number').allInnerTexts())).toEqual(
      new Set([new Intl.NumberFormat('en', { style: 'currency', currency: 'EUR' }).format(amount)]),
    );
    expect(page.url()).toContain(`minTotal=${amount}&maxTotal=${amount}`);
    // The wrong way round: the API's refusal, in words, and no list.
    await totalFrom.fill(String(amount + 1));
    await page.getByRole('button', { name: 'Apply' }).click();
    await page
      .getByRole('alert')
      .getByText(/must not be above maxTotal/)
      .waitFor();
    expect(await page.locator('table.orders').count()).toBe(0);
    // A bound the number field takes in exponent form is sent as the decimal it is.
    await totalFrom.fill('');
    await totalTo.fill('1e3');
    await totalTo.press('Enter');
    await page.locator('table.orders').waitFor();
    expect(page.url()).toContain('maxTotal=1000');
    expect(page.url()).not.toContain('minTotal=');
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await totalTo.inputValue()).toBe('1000');
    // A span no order is in: the list says the filters found none (not that there are no orders) and
    // offers to clear them.
    await totalTo.fill('');
    await totalFrom.fill('999999999999');
    await totalFrom.press('Enter');
    await page.getByText('No orders match these filters.').waitFor();
    expect(await page.getByText('No orders yet.').count()).toBe(0);
    await page.getByRole('link', { name: 'Clear the filters' }).click();
    await page.locator('table.orders').waitFor();
    expect(page.url()).not.toContain('minTotal=');
    await page.context().close();
  });

  it('is usable by keyboard and on a phone: focus before the sections, a status filter that waits for the choice, the timeline in reading order, the orders with total and date (issue 44)', async () => {
    const page = await signIn(users.staff);
    await page.locator('table.orders').waitFor();
    // After signing in, the focus is before the navigation: the keyboard reaches the sections first.
    expect(
      await page.evaluate(`(() => {
        const nav = document.querySelector('nav.main-nav');
        return Boolean(nav.compareDocumentPosition(document.activeElement) & Node.DOCUMENT_POSITION_PRECEDING);
      })()`),
    ).toBe(true);

    // Walking the statuses with the arrow keys reads nothing; Enter reads the chosen one.
    const listings: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/orders?')) listings.push(request.url());
    });
    await page.getByLabel('Status').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(listings).toEqual([]);
    const chosen = page.waitForResponse((response) => response.url().includes('/orders?'));
    await page.keyboard.press('Enter');
    expect(new URL((await chosen).url()).searchParams.get('status')).toBe('shipped');

    // One page of orders: no pager. At a phone's width the table keeps the id, status, total and date.
    await expect
      .poll(async () => new Set(await page.locator('table.orders tbody .badge').allInnerTexts()))
      .toEqual(new Set(['shipped']));
    expect(await page.locator('.pager').count()).toBe(0);
    await page.setViewportSize(phone);
    const shown = await page
      .locator('table.orders thead th')
      .evaluateAll((cells) =>
        cells
          .filter((cell) => (cell as unknown as { offsetParent: unknown }).offsetParent !== null)
          .map((cell) => cell.textContent?.trim()),
      );
    expect(shown).toEqual(['Order', 'Status', 'Total', 'Placed']);
    const tableRight = await page
      .locator('table.orders')
      .evaluate((table) => table.getBoundingClientRect().right);
    expect(tableRight).toBeLessThanOrEqual(phone.width);
    await page.setViewportSize({ width: 1280, height: 800 });

    // The timeline: tabbing goes through each event as it reads, changes and state, then the event's data.
    await page.goto(`${consoleUrl}/console#/orders/${walked.id}/timeline`);
    const second = page.locator('.timeline-entry[data-revision="1"]');
    await second.locator('summary').first().waitFor();
    expect(await second.locator('summary').allInnerTexts()).toEqual([
      'State after this event (changes highlighted)',
      'Event data, as stored',
    ]);
    await page.context().close();
  });

  it('lets an admin manage webhook endpoints: register, see how each delivers, change, disable and remove (issue 44)', async () => {
    const page = await signIn(users.admin);
    await page.goto(`${consoleUrl}/console#/webhooks`);
    await page.locator('table.subscriptions').waitFor();
    // The failing ERP receiver stands out: its last outcome, and none of its latest attempts delivered.
    const erp = page
      .locator('table.subscriptions tbody tr')
      .filter({ hasText: 'ERP (down for maintenance)' });
    expect(await erp.locator('.last-outcome .badge').innerText()).toBe('failed');
    expect(await erp.locator('.success-rate').innerText()).toMatch(/^0 %/);

    await page.getByText('Register a subscription').click();
    await page.getByLabel('Receiver URL').fill(receiver.url);
    await page.getByLabel('payment.received').uncheck();
    await page.getByLabel('Description (optional)').fill('CRM');
    await page.getByRole('button', { name: 'Register' }).click();
    expect(await page.locator('.secret-value').innerText()).toMatch(/^whsec_/);
    await page.getByRole('link', { name: 'Open the subscription' }).click();
    await page.getByRole('heading', { name: 'Subscription' }).waitFor();
    const id = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
    const now = async () =>
      (await (await api(users.admin, `/webhooks/${id}`)).json()) as Record<string, unknown>;
    expect(await now()).toMatchObject({
      events: ['order.created', 'order.status_changed'],
      description: 'CRM',
    });

    await page.getByText('Change the URL, events or description').click();
    await page.getByLabel('Description (optional)').fill('CRM (new)');
    await page.getByRole('button', { name: 'Save the changes' }).click();
    await page.getByText('Saved.', { exact: true }).waitFor();
    expect(await now()).toMatchObject({ description: 'CRM (new)' });
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable again' }).waitFor();
    expect(await now()).toMatchObject({ active: false });

    await page.getByRole('button', { name: 'Remove the subscription…' }).click();
    await page.getByText('it cannot be restored').waitFor();
    await page.getByRole('button', { name: 'Remove', exact: true }).click();
    await page.locator('table.subscriptions').waitFor();
    expect((await api(users.admin, `/webhooks/${id}`)).status).toBe(404);
    await page.context().close();
  });

  /** An admin on the page of the subscription whose receiver is down (ERP), from the list, as a person gets there. */
  const openFailingSubscription = async () => {
    const page = await signIn(users.admin);
    await page.goto(`${consoleUrl}/console#/webhooks`);
    await page.locator('table.subscriptions').waitFor();
    await page
      .locator('table.subscriptions tbody tr')
      .filter({ hasText: 'ERP (down for maintenance)' })
      .getByRole('link', { name: receiver.url })
      .click();
    return page;
  };

  it("filters a subscription's delivery attempts by outcome and by event type (issue 44)", async () => {
    const page = await openFailingSubscription();
    const rows = page.locator('table.attempts tbody tr');
    await rows.first().waitFor();
    const eventsShown = async () =>
      (await rows.locator('td:nth-child(2)').allInnerTexts()).map((text) => text.split(' ')[0]);
    expect(new Set(await eventsShown())).toEqual(new Set(['order.created', 'webhook.test']));
    // The chart's time labels never run into each other, however few spans of time it has.
    const labels = await page
      .locator('svg.outcome-chart text.axis-label')
      .evaluateAll((texts) =>
        texts.map((text) => text.getBoundingClientRect()).map((box) => [box.left, box.right]),
      );
    expect(labels.length).toBeGreaterThan(0);
    for (const [index, [left]] of labels.entries()) {
      if (index > 0) expect(left).toBeGreaterThan(labels[index - 1]![1]!);
    }

    await page.getByLabel('Event type', { exact: true }).selectOption('webhook.test');
    await expect.poll(eventsShown).not.toContain('order.created');
    expect(new URL(page.url()).hash).toContain('eventType=webhook.test');
    expect(new Set(await eventsShown())).toEqual(new Set(['webhook.test']));
    await page.getByLabel('Outcome', { exact: true }).selectOption('failed');
    await expect.poll(async () => new URL(page.url()).hash).toContain('outcome=failed');
    expect(new Set(await rows.locator('.badge[class*="outcome-"]').allInnerTexts())).toEqual(
      new Set(['failed']),
    );
    // Filtered, a delivery's newer attempts may be hidden: no attempt claims to say what comes next.
    expect(new Set(await rows.locator('td:nth-child(7)').allInnerTexts())).toEqual(
      new Set(['not shown here']),
    );
    await page.getByLabel('Outcome', { exact: true }).selectOption('delivered');
    await page.getByText('No delivery attempt matches the filters.').waitFor();
    expect(await page.getByText('No attempt yet.').count()).toBe(0);
    await page.context().close();
  });

  it('recovers every failed delivery of a subscription since a date and time (issue 44)', async () => {
    const page = await openFailingSubscription();
    await page.locator('table.attempts tbody tr').first().waitFor();
    const id = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!.split('?')[0]!);
    const attempts = async () =>
      (
        (await (await api(users.admin, `/webhooks/${id}/deliveries?perPage=100`)).json()) as {
          meta: { total: number };
        }
      ).meta.total;
    const before = await attempts();

    await page.getByLabel('Recover every failed delivery since').fill('2020-01-01T00:00');
    await page.getByRole('button', { name: 'Recover', exact: true }).click();
    const done = await page
      .getByText(/^(\d+ failed deliver(y|ies) requested again\.|No dead-lettered delivery since then)/)
      .innerText();
    // The ERP receiver's deliveries were all dead-lettered (or about to be): some are delivered again.
    expect(done, done).toMatch(/^\d+ failed deliver/);
    await expect.poll(attempts, { timeout: 20_000 }).toBeGreaterThan(before);
    await page.context().close();
  });

  it("sends a test event of the type chosen and shows its attempt; the list shows the API's success rate (issue 44)", async () => {
    // A subscription of its own, to the receiver that answers 500, taking payment.received only.
    const { id } = await registerWebhook({
      url: receiver.url,
      events: ['payment.received'],
      description: 'Test types (issue 44)',
    });
    const page = await signIn(users.admin);
    const deliveryReads: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/deliveries')) deliveryReads.push(request.url());
    });
    await page.goto(`${consoleUrl}/console#/webhooks`);
    const row = page.locator(`table.subscriptions tbody tr[data-subscription="${id}"]`);
    await row.waitFor();
    expect(await row.locator('.last-outcome').innerText()).toBe('no attempt yet');

    await row.getByRole('link', { name: receiver.url }).click();
    await page.getByRole('heading', { name: 'Subscription' }).waitFor();
    // A type the subscription does not take: sent all the same, the admin asked for it.
    await page.getByLabel('Test event of').selectOption('order.status_changed');
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText('A test event of order.status_changed was requested.').waitFor();
    await page
      .getByText(/New attempt: order\.status_changed, attempt 1, failed \(500\)\./)
      .waitFor({ timeout: 20_000 });
    const attemptRow = page.locator('table.attempts tbody tr').filter({ hasText: 'order.status_changed' });
    expect(await attemptRow.count()).toBeGreaterThanOrEqual(1);
    const sent = receiver.received.filter(({ json }) => json.type === 'order.status_changed');
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(sent[0]!.json).toMatchObject({ test: true, data: { to: 'shipped' } });

    // What an attempt sent, per attempt: its headers (the signature cut short) and the body the receiver got.
    const firstAttempt = attemptRow.last();
    await firstAttempt.locator('.request-sent summary').click();
    const headers = firstAttempt.locator('.request-sent dl.headers');
    const headerValue = async (name: string) =>
      headers
        .locator('dt', { hasText: new RegExp(`^${name}$`) })
        .locator('xpath=following-sibling::dd[1]')
        .innerText();
    expect(await headerValue('webhook-id')).toBe(sent[0]!.headers['webhook-id']);
    expect(await headerValue('content-type')).toBe('application/json');
    expect(await headerValue('webhook-signature')).toMatch(/^v1,.{8}…$/);
    const bodyShown = JSON.parse(
      await firstAttempt.getByLabel('Body sent with attempt 1').innerText(),
    ) as unknown;
    expect(bodyShown).toEqual(sent[0]!.json);

    // Its two retries, 100 ms apart, then dead-lettered: the stats stay as they are from then on.
    const statsNow = async () =>
      (
        (await (await api(users.admin, `/webhooks/${id}`)).json()) as {
          deliveryStats: { attempts: number; successRate: number; lastOutcome: string };
        }
      ).deliveryStats;
    await expect.poll(async () => (await statsNow()).attempts, { timeout: 20_000 }).toBe(3);
    const stats = await statsNow();

    // Back on the list: the rate and the last outcome are the API's deliveryStats, read with the list alone.
    deliveryReads.length = 0;
    await page.getByRole('link', { name: 'Webhooks', exact: true }).first().click();
    await row.locator('.last-outcome .badge').waitFor();
    expect(stats).toMatchObject({ successRate: 0, lastOutcome: 'failed' });
    expect(await row.locator('.last-outcome .badge').innerText()).toBe(stats.lastOutcome);
    expect(await row.locator('.success-rate').innerText()).toMatch(
      new RegExp(`^${Math.round(stats.successRate * 100)} %\\s*of the last ${stats.attempts}$`),
    );
    expect(await row.getAttribute('class')).toContain('has-errors');
    expect(deliveryReads).toEqual([]);
    await page.context().close();
  });

  it('shows the deliveries waiting behind one the receiver has not answered yet, until both are delivered (issue 44)', async () => {
    const { id } = await registerWebhook({
      url: slowReceiver.url,
      events: ['order.created', 'order.status_changed'],
      description: 'Slow warehouse',
    });
    const { id: orderId } = await placeOrder(users.customer, '1004');
    await moveOrder(users.customer, orderId, 'cancel');
    await slowReceiver.waitFor((all) => all.length >= 1);

    const page = await signIn(users.admin);
    await page.goto(`${consoleUrl}/console#/webhooks/${id}`);
    const section = page.getByRole('region', { name: 'Waiting to be delivered' });
    const rows = section.locator('table.pending tbody tr');
    await rows.nth(1).waitFor();
    expect(await rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-state')))).toEqual([
      'scheduled',
      'waiting',
    ]);
    const [created, cancelled] = [rows.nth(0), rows.nth(1)];
    expect(await created.locator('td:nth-child(2)').innerText()).toMatch(/^order\.created /);
    expect(await cancelled.locator('td:nth-child(2)').innerText()).toMatch(/^order\.status_changed /);
    expect(await cancelled.locator('td:nth-child(3) code').getAttribute('title')).toBe(orderId);
    // The delivery ahead, named by its event as the rows name theirs.
    const headEvent = await created.locator('td:nth-child(2) code').getAttribute('title');
    expect(await cancelled.locator('td:nth-child(6)').innerText()).toMatch(/^after order\.created /);
    expect(await cancelled.locator('td:nth-child(6) code').getAttribute('title')).toBe(headEvent);
    expect(await cancelled.innerText()).toContain('sent once the delivery ahead of it is delivered');
    // The waiting delivery has no attempt yet: only the pending list shows it.
    expect(await page.locator('table.attempts tbody tr').count()).toBe(0);

    await slowReceiver.waitFor((all) => all.some(({ json }) => json.type === 'order.status_changed'));
    await expect
      .poll(
        async () =>
          ((await (await api(users.admin, `/webhooks/${id}/deliveries/pending`)).json()) as { data: [] }).data
            .length,
        { timeout: 20_000 },
      )
      .toBe(0);
    // The queue moved on its own; the operator reads it again.
    await section.getByRole('button', { name: 'Read again' }).click();
    await section.getByText('Nothing waiting: every delivery accepted so far was settled.').waitFor();
    expect(await rows.count()).toBe(0);
    await page.context().close();
  });

  it('narrows the audit log to a span of time (issue 44)', async () => {
    // The newest event's minute, as the browser's datetime-local field reads it.
    const newest = (
      (await (await api(users.auditor, '/audit/events?newest=true&limit=1')).json()) as {
        data: { occurredAt: string }[];
      }
    ).data[0]!;
    const minute = new Date(newest.occurredAt);
    minute.setSeconds(0, 0);
    const local = new Date(minute.getTime() - minute.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

    const page = await signIn(users.auditor);
    await page.goto(`${consoleUrl}/console#/audit`);
    await page.locator('table tbody tr').first().waitFor();
    await page.getByLabel('until', { exact: true }).fill('2020-01-01T00:00');
    await page.getByRole('button', { name: 'Show this time' }).click();
    await page.getByText('No events here.').waitFor();
    expect(new URL(page.url()).hash).toContain('until=2020-01-01T');

    await page.getByLabel('until', { exact: true }).fill('');
    await page.getByLabel('Recorded from').fill(local);
    await page.getByRole('button', { name: 'Show this time' }).click();
    await page.locator('table tbody tr').first().waitFor();
    const times = await page
      .locator('table tbody tr time')
      .evaluateAll((elements) => elements.map((element) => element.getAttribute('datetime') ?? ''));
    expect(times.length).toBeGreaterThan(0);
    for (const time of times) expect(Date.parse(time), time).toBeGreaterThanOrEqual(minute.getTime());
    expect(new URL(page.url()).hash).toContain(`from=${encodeURIComponent(minute.toISOString())}`);

    // The fields follow the address: after "Newest first", no filter typed before is left in them.
    await page.getByLabel('Stream or order id').fill('user-00000000-0000-7000-8000-000000000000');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await expect.poll(async () => new URL(page.url()).hash).toContain('stream=user-');
    await page.getByRole('link', { name: 'Newest first' }).click();
    await expect.poll(async () => new URL(page.url()).hash).toBe('#/audit');
    await expect.poll(() => page.getByLabel('Stream or order id').inputValue()).toBe('');
    await expect.poll(() => page.getByLabel('Recorded from').inputValue()).toBe('');
    await page.context().close();
  });

  /** Waits for the browser tab's title to read `expected`. */
  const titleOnceItReads = (page: Page, expected: string) => expect.poll(() => page.title()).toBe(expected);

  it('titles the tab after what it shows, "Not available" and "Nothing here" included', async () => {
    const page = await signIn(users.customer);
    const open = async (hash: string, heading: string | RegExp) => {
      await page.goto(`${consoleUrl}/console#${hash}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    };
    await open('/health', 'Health');
    await titleOnceItReads(page, 'Health · Order console');
    await open('/audit', 'Not available');
    await titleOnceItReads(page, 'Not available · Order console');
    await open('/health', 'Health');
    await open('/webhooks', 'Not available');
    await titleOnceItReads(page, 'Not available · Order console');
    await open(`/orders/${walked.id}/timeline`, /^Timeline of order/);
    await titleOnceItReads(page, `Timeline of order ${shortId(walked.id)} · Order console`);
    await open('/nonsense', 'Nothing here');
    await titleOnceItReads(page, 'Nothing here · Order console');
    await page.context().close();
  });

  it('says "No such order" at an address whose id is no UUID, instead of heading it with its last 8 characters', async () => {
    const page = await signIn(users.admin);
    const open = async (hash: string, heading: string) => {
      await page.goto(`${consoleUrl}/console#${hash}`);
      await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
      await titleOnceItReads(page, `${heading} · Order console`);
    };
    await open('/orders/not-a-uuid', 'No such order');
    await page.getByText('There is no order with this id.').waitFor();
    await open('/orders/not-a-uuid/timeline', 'No such order');
    await open('/webhooks/not-a-uuid', 'No such subscription');
    await page.getByText('There is no webhook subscription with this id.').waitFor();
    expect(await page.locator('main').innerText()).not.toContain('t-a-uuid');
    await page.context().close();
  });

  it('moves the focus to what an action came to, not to the page when its button goes or waits', async () => {
    /** The focused element's role (its tag name when it has none) and words. */
    const focused = (page: Page) =>
      page.evaluate(`({
        role: document.activeElement.getAttribute('role') ?? document.activeElement.tagName,
        text: document.activeElement.innerText,
      })`) as Promise<{ role: string; text: string }>;
    const pending = await placeOrder(users.customer, '1001');
    const page = await signIn(users.staff);
    await page.goto(`${consoleUrl}/console#/orders/${pending.id}`);
    await page.getByRole('button', { name: 'Confirm' }).focus();
    await page.keyboard.press('Enter');
    // Confirmed, the order offers no Confirm: the focus goes to the sentence that says so.
    await expect.poll(() => focused(page)).toEqual({ role: 'status', text: 'Confirmed.' });
    await page.getByLabel(/^Amount/).fill('99999');
    await page.getByLabel('Reference').fill('too-much');
    await page.getByRole('button', { name: 'Record payment' }).click();
    await expect.poll(async () => (await focused(page)).role).toBe('alert');
    expect((await focused(page)).text).toContain('Amount: must be at most what is outstanding');
    await page.context().close();

    const admin = await openFailingSubscription();
    await admin.getByRole('button', { name: 'Send a test event' }).click();
    await expect
      .poll(() => focused(admin))
      .toEqual({ role: 'status', text: 'A test event of webhook.test was requested.' });
    await admin.context().close();
  });

  it('did nothing a strict CSP refuses, threw nothing, asked nothing of another origin, and cached its assets', () => {
    expect(misbehaviour).toEqual([]);
    expect(assetCaching.size).toBeGreaterThanOrEqual(20);
    for (const [url, cacheControl] of assetCaching) {
      expect(url).toMatch(/\/console\/assets\/[0-9a-f]{16}\//);
      expect(cacheControl, url).toBe('public, max-age=31536000, immutable');
    }
    expect(views).toHaveLength(12);
  });
});
