import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { describeWithChromium, launchChromium } from './browser/chromium';
import { apiCalls, buildConsole, checkScreen, signedInConsole } from './support/console-browser';
import { listenRealApp, type ListeningApp } from './support/real-app';

// The console's audit log and webhook screens in Chromium against the real service (SQLite), each
// screen with an axe-core check and a screenshot (apps/api/test-output/console/, gitignored). The
// service may deliver webhooks to loopback (SVC_WEBHOOKS_ALLOW_PRIVATE), where this file's
// receiver listens and verifies every signature with the secret the screen showed.

jest.setTimeout(120_000);

type Json = Record<string, any>;
// What the functions passed to page.evaluate read: they run in the page, not in Node.
declare const document: any;

/** The value a `datetime-local` input takes for `date` (the browser runs in this process's time zone). */
const localInput = (date: Date) => new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** Polls `check` until it holds (deliveries are asynchronous), failing after `ms`. */
async function eventually<T>(check: () => T | undefined | false, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A loopback webhook receiver: records each delivery and answers `status`. */
async function startReceiver() {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const state = { status: 204 };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, state, close: () => new Promise((resolve) => server.close(resolve)) };
}

describeWithChromium("the console's audit log and webhooks in Chromium", () => {
  let service: ListeningApp;
  let browser: Browser;
  let origin: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  const { adminCall, keyCall } = apiCalls(() => origin);

  const signedIn = (viewport?: { width: number; height: number }) => signedInConsole(browser, origin, viewport);

  beforeAll(async () => {
    buildConsole();
    service = await listenRealApp({ SVC_WEBHOOKS_ALLOW_PRIVATE: 'true' });
    receiver = await startReceiver();
    origin = service.url.replace('127.0.0.1', 'localhost');
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await service?.close();
  });

  it('shows the audit log: console edits with their actor and before/after, filters by type, user and time, pages on demand', async () => {
    const created = await adminCall('POST', '/admin/projects', { name: 'Audited', plan: 'PRO' });
    const audited = { id: created.body.data.project.id as string, key: created.body.data.apiKeys.production as string };
    const emails = Array.from({ length: 8 }, (_, i) => `a${i + 1}@example.com`);
    for (const email of emails) expect((await keyCall(audited.key, '/api/auth/signup', { email, password: 'correct horse battery' })).status).toBe(201);
    for (let i = 0; i < 2; i += 1) expect((await keyCall(audited.key, '/api/auth/login', { email: 'a2@example.com', password: 'wrong horse battery' })).status).toBe(401);
    const logPath = `/admin/projects/${audited.id}/environments/production/audit-log`;
    const { context, page, failures } = await signedIn();
    const base = `${origin}/console#/projects/${audited.id}/production`;

    // An admin edit through the console: recorded as the console's, with the settings before and after.
    await page.goto(`${base}/settings`);
    await page.getByLabel('Allowed origins').fill('https://audited.example');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();

    const all = (await adminCall('GET', `${logPath}?limit=200`)).body.data.entries as Json[];
    expect(all[0]).toMatchObject({ type: 'project.updated', actor: { type: 'admin', via: 'console' }, data: { after: { allowedOrigins: ['https://audited.example'] } } });
    const failed = all.filter((e) => e.type === 'user.sign_in_failed');
    expect(failed).toHaveLength(2);
    expect(all.length).toBeGreaterThan(12);

    await page.getByRole('link', { name: 'Audit log' }).click();
    const entries = page.getByRole('list', { name: 'Audit entries, newest first' }).getByRole('listitem');
    const types = () => entries.locator('.badge').allTextContents();
    // Exact: "13 entries shown." must not pass for "3 entries shown.".
    const shown = (n: number) => page.getByText(`${n} ${n === 1 ? 'entry' : 'entries'} shown.`, { exact: true });
    await shown(all.length).waitFor();
    expect(await types()).toEqual(all.map((e) => e.type));
    await page.getByText('No older entries.').waitFor();
    const newest = entries.first();
    expect(await newest.getByText('Console', { exact: true }).count()).toBe(1);
    await newest.getByText('Details', { exact: true }).click();
    const change = newest.getByRole('table', { name: 'Settings changed' });
    await change.getByRole('row', { name: /allowedOrigins/ }).waitFor();
    expect(
      await change
        .getByRole('row', { name: /allowedOrigins/ })
        .getByRole('cell')
        .allTextContents(),
    ).toEqual([JSON.stringify(all[0].data.before.allowedOrigins, null, 1), JSON.stringify(['https://audited.example'], null, 1)]);
    await checkScreen(page, '12-audit-log');

    // By type: the failed sign-ins alone, each with its client address and user agent.
    await page.getByLabel('Event type').selectOption('user.sign_in_failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await shown(2).waitFor();
    expect(await types()).toEqual(['user.sign_in_failed', 'user.sign_in_failed']);
    expect(await entries.first().textContent()).toContain(failed[0].clientAddress);
    expect(failed[0].userAgent).toBeTruthy();
    expect(await entries.first().textContent()).toContain(failed[0].userAgent);
    const keys = (await adminCall('GET', `/admin/projects/${audited.id}/api-keys`)).body.data.apiKeys as Json[];
    const key = keys.find((k) => k.id === failed[0].actor.apiKeyId)!;
    expect(audited.key.endsWith(key.suffix)).toBe(true);
    await entries.first().getByText(`API key …${key.suffix}`).waitFor();

    // By user: one user's events, from the entry's own button; the user link opens the user's page.
    const userId = failed[0].userId as string;
    const ofUser = all.filter((e) => e.userId === userId);
    await page.getByLabel('Event type').selectOption('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await shown(all.length).waitFor();
    await page
      .getByRole('button', { name: `Only this user: ${userId}` })
      .first()
      .click();
    await shown(ofUser.length).waitFor();
    expect(await page.getByLabel('User id').inputValue()).toBe(userId);
    expect(await types()).toEqual(ofUser.map((e) => e.type));
    expect(ofUser.map((e) => e.type)).toEqual(expect.arrayContaining(['user.created', 'user.sign_in_failed']));

    // A bad user id is the API's message; a time range before anything happened is empty.
    await page.getByLabel('User id').fill('not-a-user');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('alert').getByText('userId must be a user id.').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await shown(all.length).waitFor();
    await page.getByLabel('Until (your local time)').fill(localInput(new Date(Date.parse(all[all.length - 1].at) - 120_000)));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No entries match.').waitFor();
    await page.getByLabel('Until (your local time)').fill('');
    await page.getByLabel('From (your local time)').fill(localInput(new Date(Date.parse(all[all.length - 1].at) - 120_000)));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await shown(all.length).waitFor();

    // Pages of ten, older ones loaded on demand, together the whole log in order.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Entries per page').selectOption('10');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('10 entries shown, older ones on request.', { exact: true }).waitFor();
    const older = page.getByRole('button', { name: 'Load older entries' });
    for (let count = 10; count < all.length; count += 10) {
      await older.click();
      await page.getByText(new RegExp(`^${Math.min(count + 10, all.length)} entries shown`)).waitFor();
    }
    await page.getByText('No older entries.').waitFor();
    expect(await older.count()).toBe(0);
    expect(await types()).toEqual(all.map((e) => e.type));

    await page.getByRole('link', { name: userId }).first().click();
    await page.waitForURL(`${base}/users/${userId}`);

    // The Sandbox's log is its own: no sign-up, but the settings change (settings hold both environments).
    const sandboxLog = (await adminCall('GET', `/admin/projects/${audited.id}/environments/sandbox/audit-log?limit=200`)).body.data.entries as Json[];
    expect(sandboxLog[0].type).toBe('project.updated');
    expect(sandboxLog.map((e) => e.type)).not.toContain('user.created');
    await page.goto(`${base}/audit-log`);
    await shown(all.length).waitFor();
    await page.getByRole('link', { name: 'Sandbox', exact: true }).click();
    await shown(sandboxLog.length).waitFor();
    expect(await types()).toEqual(sandboxLog.map((e) => e.type));

    // At a phone's width: nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/audit-log`);
    await shown(all.length).waitFor();
    await entries.first().getByText('Details', { exact: true }).click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await checkScreen(page, '13-audit-log-390px');
    expect(failures).toEqual([]);
    await context.close();
  });

  it('manages webhooks: the secret shown once, test deliveries in the delivery log, redelivery, rotation, disable, delete', async () => {
    const created = await adminCall('POST', '/admin/projects', { name: 'Hooked' });
    const hooked = { id: created.body.data.project.id as string, key: created.body.data.apiKeys.production as string };
    const hooksPath = `/admin/projects/${hooked.id}/environments/production/webhooks`;
    const { context, page, failures } = await signedIn();
    const base = `${origin}/console#/projects/${hooked.id}/production`;
    await page.goto(`${base}/webhooks`);
    await page.getByText('No webhook endpoint in this environment.').waitFor();

    // Create: URL and two event types; the secret is shown once.
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    const picker = page.getByRole('group', { name: 'Event types' });
    await picker.getByLabel('user.created', { exact: true }).check();
    await picker.getByLabel('user.banned', { exact: true }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText("you won't see it again").waitFor();
    const secret = (await page.getByTestId('secret').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await page.getByRole('cell', { name: 'user.created, user.banned' }).waitFor();
    await checkScreen(page, '14-webhooks');
    const listed = (await adminCall('GET', hooksPath)).body.data.endpoints as Json[];
    expect(listed).toEqual([expect.objectContaining({ url: receiver.url, eventTypes: ['user.created', 'user.banned'], enabled: true })]);
    const endpointId = listed[0].id as string;
    await page.reload();
    await page.getByRole('link', { name: receiver.url }).waitFor();
    expect(await page.content()).not.toContain(secret);

    // A test delivery, signed with that secret, listed as delivered with its attempt.
    const deliveries = (type: string) => receiver.received.filter((r) => JSON.parse(r.body).type === type);
    const verified = (key: string, type: string, n: number) => {
      const delivery = deliveries(type)[n];
      return delivery && (new Webhook(key).verify(delivery.body, delivery.headers as Record<string, string>) as Json);
    };
    await page.getByRole('link', { name: receiver.url }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    await page.getByRole('button', { name: 'Send test' }).click();
    expect(await eventually(() => verified(secret, 'webhook.test', 0))).toMatchObject({ type: 'webhook.test' });
    const log = page.getByRole('table', { name: 'Latest messages, newest first' });
    const testRow = log.getByRole('row', { name: /webhook\.test/ });
    await testRow.getByText('delivered').waitFor();
    expect(await testRow.getByRole('cell').nth(3).textContent()).toBe('1');
    await testRow.getByRole('button', { name: /^Attempts of webhook\.test msg_/ }).click();
    const attempts = page.getByRole('list', { name: /^Attempts of msg_/ }).getByRole('listitem');
    await attempts.filter({ hasText: 'HTTP 204' }).waitFor();
    expect(await attempts.count()).toBe(1);
    const webhookId = deliveries('webhook.test')[0].headers['webhook-id'];
    await page.getByRole('heading', { name: new RegExp(`webhook\\.test ${webhookId}`) }).waitFor();

    // Redelivered: the same webhook-id again, a second attempt in the log.
    await testRow.getByRole('button', { name: /^Redeliver webhook\.test/ }).click();
    await eventually(() => deliveries('webhook.test').length === 2);
    expect(deliveries('webhook.test')[1].headers['webhook-id']).toBe(webhookId);
    await attempts.nth(1).waitFor();

    // A failing receiver: its status code in the attempts, the message still pending.
    receiver.state.status = 500;
    await testRow.getByRole('button', { name: /^Redeliver webhook\.test/ }).click();
    await eventually(() => deliveries('webhook.test').length === 3);
    await attempts.filter({ hasText: 'HTTP 500' }).waitFor();
    await testRow.getByText('pending').waitFor();
    receiver.state.status = 204;
    await testRow.getByRole('button', { name: /^Redeliver webhook\.test/ }).click();
    await testRow.getByText('delivered').waitFor();
    await checkScreen(page, '15-webhook-endpoint');

    // A subscribed event is delivered and logged; a range redelivers both messages.
    expect((await keyCall(hooked.key, '/api/auth/signup', { email: 'hooked@example.com', password: 'correct horse battery' })).status).toBe(201);
    await eventually(() => verified(secret, 'user.created', 0));
    await page.getByRole('button', { name: 'Refresh' }).click();
    await log
      .getByRole('row', { name: /user\.created/ })
      .getByText('delivered')
      .waitFor();
    const before = receiver.received.length;
    await page.getByLabel('From (your local time)').fill(localInput(new Date(Date.now() - 3_600_000)));
    await page.getByLabel('Until (your local time)').fill(localInput(new Date(Date.now() + 3_600_000)));
    await page.getByRole('button', { name: 'Redeliver range' }).click();
    await page.getByText('2 messages queued again.').waitFor();
    await eventually(() => receiver.received.length >= before + 2);

    // Event types edited.
    const edit = page.getByRole('form', { name: 'Edit event types' });
    await edit.getByLabel('user.banned', { exact: true }).uncheck();
    await edit.getByRole('button', { name: 'Save event types' }).click();
    await page.getByText('Event types saved.').waitFor();
    expect((await adminCall('GET', `${hooksPath}/${endpointId}`)).body.data.endpoint.eventTypes).toEqual(['user.created']);

    // A rotated secret: shown once, new, and signing the next delivery.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText("you won't see it again").waitFor();
    const rotated = (await page.getByTestId('secret').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByRole('button', { name: 'Send test' }).click();
    const next = await eventually(() => deliveries('webhook.test').find((d) => d.headers['webhook-id'] !== webhookId));
    expect(new Webhook(rotated).verify(next.body, next.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });

    // Disabled: no message for a new sign-up.
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    await page.getByText('disabled', { exact: true }).waitFor();
    expect((await adminCall('GET', `${hooksPath}/${endpointId}`)).body.data.endpoint.enabled).toBe(false);
    const messages = async () => ((await adminCall('GET', `${hooksPath}/${endpointId}/messages`)).body.data.messages as Json[]).length;
    const count = await messages();
    expect((await keyCall(hooked.key, '/api/auth/signup', { email: 'quiet@example.com', password: 'correct horse battery' })).status).toBe(201);
    expect(await messages()).toBe(count);

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await checkScreen(page, '16-webhook-endpoint-390px');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Deleted after the confirm dialog: gone from the list and the API.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No webhook endpoint in this environment.').waitFor();
    expect((await adminCall('GET', `${hooksPath}/${endpointId}`)).status).toBe(404);
    expect(failures).toEqual([]);
    await context.close();
  });
});
