import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, launchChromium } from './browser/chromium';
import { buildConsole, checkScreen, signedInConsole } from './support/console-browser';
import { listenRealApp, REAL_ADMIN_TOKEN, type ListeningApp } from './support/real-app';

// The console's overview and user sessions in Chromium against the real service (SQLite): sign-ins,
// sign-ups, failures and rate-limited requests caused through the API appear as figures, a chart
// and a table; a session shows its device and address. An axe-core check and a screenshot of each
// screen (apps/api/test-output/console/, gitignored), at desktop width and at 390 px.

jest.setTimeout(120_000);

type Json = Record<string, any>;
// What the functions passed to page.evaluate read: they run in the page, not in Node.
declare const document: any;

const SAFARI = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

describeWithChromium('the console overview and user sessions in Chromium', () => {
  let service: ListeningApp;
  let browser: Browser;
  let origin: string;
  let project: { id: string; live: string };
  let ada: string;

  const keyCall = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${origin}${path}`, { method: 'POST', headers: { 'X-API-Key': project.live, 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

  beforeAll(async () => {
    buildConsole();
    // Two logins per address and e-mail in 15 minutes, so the third is refused with 429.
    service = await listenRealApp({ SVC_RATE_LIMITS: '{"login":{"limit":2,"windowSeconds":900}}' });
    origin = service.url.replace('127.0.0.1', 'localhost');
    const created = await fetch(`${origin}/admin/projects`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${REAL_ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Overview Co' }),
    });
    const body = (await created.json()) as Json;
    project = { id: body.data.project.id, live: body.data.apiKeys.production };
    // Two sign-ups (one from "Safari on a Mac" at a known address), a sign-in, a wrong password
    // and two refused logins: 2 sign-ups, 1 sign-in, 1 failure, 2 rate-limited.
    const signedUp = await keyCall('/api/auth/signup', { email: 'ada@example.com', password: 'correct horse battery' }, { 'User-Agent': SAFARI, 'X-Svc-Client-Ip': '198.51.100.23' });
    expect(signedUp.status).toBe(201);
    ada = ((await signedUp.json()) as Json).data.user.id;
    expect((await keyCall('/api/auth/signup', { email: 'bob@example.com', password: 'correct horse battery' })).status).toBe(201);
    const login = (password: string) => keyCall('/api/auth/login', { email: 'bob@example.com', password });
    expect((await login('correct horse battery')).status).toBe(200);
    expect((await login('wrong horse battery')).status).toBe(401);
    expect((await login('correct horse battery')).status).toBe(429);
    expect((await login('correct horse battery')).status).toBe(429);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  async function signedIn(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; failures: string[] }> {
    const { context, page, failures } = await signedInConsole(browser, origin, viewport);
    await page.getByRole('link', { name: 'Overview Co' }).click();
    await page.getByRole('link', { name: 'Overview' }).click();
    return { context, page, failures };
  }

  const figure = (page: Page, label: string) =>
    page
      .locator('.stat')
      .filter({ has: page.locator('.stat-label').getByText(label, { exact: true }) })
      .locator('.stat-value');
  const today = new Date().toISOString().slice(0, 10);

  it('shows sign-ins, sign-ups, failures and rate-limited requests as figures, a chart and a table', async () => {
    const { context, page, failures } = await signedIn({ width: 1280, height: 900 });
    const activity = page.getByRole('region', { name: 'Activity · Production' });
    await activity.waitFor();
    await figure(page, 'Rate-limited requests').getByText('2', { exact: true }).waitFor();
    expect(await figure(page, 'Sign-ins').textContent()).toBe('1');
    expect(await figure(page, 'Sign-ups').textContent()).toBe('2');
    expect(await figure(page, 'Failed sign-ins').textContent()).toBe('1');
    await page.getByRole('link', { name: /2\s*Production users/ }).waitFor();

    // The chart is one named image with a summary; every number is in the table too.
    const chart = activity.getByRole('img', { name: 'Production sign-ins, sign-ups and failed sign-ins per day' });
    expect(await chart.getAttribute('aria-labelledby')).toBe('activity-chart-title activity-chart-desc');
    expect(await activity.locator('desc').textContent()).toContain('Sign-ins: 1, Sign-ups: 2, Failed sign-ins: 1.');
    expect(await activity.locator('rect').count()).toBe(14 * 3);
    await activity.getByText('Show the figures as a table').click();
    const rows = activity.getByRole('table').locator('tbody tr');
    expect(await rows.count()).toBe(14);
    const label = new Date(`${today}T00:00:00Z`).toLocaleDateString('en-US', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });
    expect(await rows.first().locator('td').allTextContents()).toEqual([label, '1', '2', '1', '2']);
    await checkScreen(page, '20-overview-activity');

    // Another period, and the other environment (nothing happened there).
    await activity.getByLabel('Period').selectOption('7');
    await page.waitForFunction(() => document.querySelectorAll('.chart rect').length === 21);
    expect(await activity.getByRole('table').locator('tbody tr').count()).toBe(7);
    await page.getByRole('link', { name: 'Sandbox', exact: true }).click();
    await page.getByRole('region', { name: 'Activity · Sandbox' }).waitFor();
    await page.waitForFunction(() => document.querySelector('.stat-warn') === null);
    expect(await figure(page, 'Rate-limited requests').textContent()).toBe('0');
    expect(await figure(page, 'Sign-ups').textContent()).toBe('0');
    expect(failures).toEqual([]);
    await context.close();
  });

  it("shows a session's device and address in the user's page, the raw user agent a click away", async () => {
    const { context, page, failures } = await signedIn({ width: 1280, height: 900 });
    await page.goto(`${origin}/console#/projects/${project.id}/production/users/${ada}`);
    const sessions = page.getByRole('region', { name: 'Sessions' });
    const device = sessions.getByText('Safari 17 on macOS');
    await device.waitFor();
    expect(await sessions.getByRole('table').locator('tbody tr').first().locator('td').nth(1).textContent()).toBe('198.51.100.23');
    await device.click();
    await sessions.getByText(SAFARI).waitFor();
    await checkScreen(page, '21-user-sessions');
    expect(failures).toEqual([]);
    await context.close();
  });

  it('is usable at 390 px wide', async () => {
    const { context, page, failures } = await signedIn({ width: 390, height: 844 });
    await figure(page, 'Rate-limited requests').getByText('2', { exact: true }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await checkScreen(page, '22-overview-390px');
    await page.goto(`${origin}/console#/projects/${project.id}/production/users/${ada}`);
    await page.getByText('Safari 17 on macOS').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await checkScreen(page, '23-user-sessions-390px');
    expect(failures).toEqual([]);
    await context.close();
  });
});
