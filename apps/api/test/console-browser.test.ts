import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { describeWithChromium, launchChromium } from './browser/chromium';
import { buildConsole, checkScreen, signedInConsole } from './support/console-browser';
import { listenRealApp, REAL_ADMIN_TOKEN, type ListeningApp } from './support/real-app';

// The admin console in Chromium against the real service (SQLite): sign-in, every screen, an
// axe-core check and a screenshot of each (apps/api/test-output/console/, gitignored), and the
// session cookie refused cross-site and without its CSRF token. The service may deliver webhooks
// to loopback (SVC_WEBHOOKS_ALLOW_PRIVATE), where the webhook screen's receiver listens.

jest.setTimeout(120_000);

type Json = Record<string, any>;
// What the functions passed to page.evaluate read: they run in the page, not in Node.
declare const document: any, localStorage: unknown, sessionStorage: unknown;

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

describeWithChromium('the admin console in Chromium', () => {
  let service: ListeningApp;
  let browser: Browser;
  let attacker: Server;
  let origin: string;
  let attackerOrigin: string;
  let project: { id: string; live: string; sandbox: string };
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  const adminCall = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { Authorization: `Bearer ${REAL_ADMIN_TOKEN}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const keyCall = (key: string, path: string, body: unknown) =>
    fetch(`${origin}${path}`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  const signedIn = (viewport?: { width: number; height: number }) => signedInConsole(browser, origin, viewport);

  beforeAll(async () => {
    // Built from the sources under test (esbuild takes well under a second), never a stale bundle.
    buildConsole();
    service = await listenRealApp({ SVC_WEBHOOKS_ALLOW_PRIVATE: 'true' });
    receiver = await startReceiver();
    // The console at localhost; the attacker's page at 127.0.0.1: another site to the browser.
    origin = service.url.replace('127.0.0.1', 'localhost');
    attacker = createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<!doctype html><title>elsewhere</title>
        <form id="f" method="POST" action="${origin}/admin/projects" enctype="text/plain"><input name='{"name":"Forged","x":"' value='"}'></form>
        <a id="nav" href="${origin}/console/api/session">session</a>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    const created = await adminCall('POST', '/admin/projects', { name: 'Acme', plan: 'PRO', magicLinkUrl: 'http://localhost:5173/magic' });
    project = { id: created.body.data.project.id, live: created.body.data.apiKeys.production, sandbox: created.body.data.apiKeys.sandbox };
    for (const email of ['ada@example.com', 'grace@example.com', 'alan@example.com']) {
      expect((await keyCall(project.live, '/api/auth/signup', { email, password: 'correct horse battery' })).status).toBe(201);
    }
    expect((await keyCall(project.sandbox, '/api/auth/magic-link', { email: 'tester@example.com' })).status).toBe(200);
    // More projects than one console page (20) holds, so paging is exercised.
    for (let i = 1; i <= 20; i += 1) expect((await adminCall('POST', '/admin/projects', { name: `Filler ${String(i).padStart(2, '0')}` })).status).toBe(201);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await receiver?.close();
    await service?.close();
  });

  it('signs in and works through every screen, at desktop and at 390 px wide', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('requestfailed', (req) => failures.push(`${req.url()} ${req.failure()?.errorText}`));

    await page.goto(`${origin}/console`);
    await page.getByLabel('Admin token').waitFor();
    await checkScreen(page, '01-sign-in');
    await page.getByLabel('Admin token').fill('wrong-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('The admin token is not right.').waitFor();
    await page.getByLabel('Admin token').fill(REAL_ADMIN_TOKEN);
    await page.keyboard.press('Enter');

    // Projects: list, search, create (keys shown once).
    await page
      .getByRole('link', { name: /^Filler / })
      .first()
      .waitFor();
    expect(await page.evaluate(() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage) + document.cookie)).not.toContain(REAL_ADMIN_TOKEN);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await checkScreen(page, '02-projects');
    const onPage = () => page.getByRole('table').getByRole('link').allTextContents();
    const first = await onPage();
    expect(first).toHaveLength(20);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Next' }).and(page.locator('[disabled]')).waitFor();
    const second = await onPage();
    expect(second).toHaveLength(1);
    expect([...first, ...second].sort()).toEqual(['Acme', ...Array.from({ length: 20 }, (_, i) => `Filler ${String(i + 1).padStart(2, '0')}`)].sort());
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByRole('button', { name: 'Previous' }).and(page.locator('[disabled]')).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Beta shop');
    await page.getByRole('button', { name: 'Create project' }).click();
    const secrets = page.getByTestId('secret');
    await secrets.first().waitFor();
    expect(await secrets.allTextContents()).toEqual([expect.stringMatching(/^svc_live_/), expect.stringMatching(/^svc_sbx_/)]);
    await checkScreen(page, '03-project-created');
    await page.getByLabel('Search projects by name').fill('beta');
    await page.getByRole('button', { name: 'Search' }).click();
    await page
      .getByRole('link', { name: /^Filler / })
      .first()
      .waitFor({ state: 'detached' });
    expect(await page.getByRole('table').getByRole('link').allTextContents()).toEqual(['Beta shop']);
    await page.getByLabel('Search projects by name').fill('acme');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'Acme' }).click();

    // Users: total, search, detail, role and meta, sessions, ban.
    await page.getByText('3 users').waitFor();
    await checkScreen(page, '04-users');
    await page.getByLabel('Search users by e-mail').fill('GRA');
    await page.keyboard.press('Enter');
    await page.getByText('1 user', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'grace@example.com' }).click();
    await page.getByRole('heading', { name: 'grace@example.com' }).waitFor();
    await page.getByLabel('Role', { exact: true }).fill('editor');
    await page.getByLabel('Meta (JSON object)').fill('{"team": ');
    await page.getByText('Meta is not valid JSON').waitFor();
    expect(await page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
    await page.getByLabel('Meta (JSON object)').fill('{"team": "blue"}');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('button', { name: /^Revoke session/ }).click();
    await page.getByText(/^revoked /).waitFor();
    await checkScreen(page, '05-user-detail');
    await page.getByRole('button', { name: 'Ban' }).click();
    await page.getByRole('button', { name: 'Unban' }).waitFor();
    const users = await adminCall('GET', `/admin/projects/${project.id}/environments/production/users?q=grace`);
    expect(users.body.data.users[0]).toMatchObject({ role: 'editor', meta: { team: 'blue' }, banned: true });
    await page.getByRole('button', { name: 'Unban' }).click();
    await page.getByRole('button', { name: 'Ban' }).waitFor();
    // Delete another user (the browser's confirm dialog accepted): back to a list of two.
    await page.getByRole('link', { name: '← All users' }).click();
    await page.getByRole('link', { name: 'alan@example.com' }).click();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('2 users').waitFor();
    expect((await adminCall('GET', `/admin/projects/${project.id}/environments/production/users?q=alan`)).body.data.total).toBe(0);

    // Overview: users per environment (the Sandbox has the one the magic link created).
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('link', { name: /2\s*Production users/ }).waitFor();
    await page.getByRole('link', { name: /1\s*Sandbox users/ }).waitFor();
    await checkScreen(page, '06-overview');

    // Settings.
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Allowed origins').fill('https://acme.example\nhttp://localhost:5173');
    await page.getByLabel('Default meta (JSON object)').fill('{"tier": ');
    await page.getByText('Default meta is not valid JSON').waitFor();
    await page.getByLabel('Default meta (JSON object)').fill('{"tier": "gold"}');
    await page.getByLabel('Passkeys: relying party id').fill('acme.example');
    await page.getByLabel('Passkeys: name shown').fill('Acme');
    await page.getByLabel('Passkeys: origins').fill('https://acme.example');
    await page.getByLabel('A replayed refresh token ends').selectOption('revoke_session');
    await page.getByLabel('Mail the user when a replay ends their sessions').check();
    await page.getByLabel('Audit log retention (days)').fill('30');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    // Mail templates: the preview renders as the service will (core's renderer), then saved.
    await page.getByRole('button', { name: 'Password reset' }).click();
    await page.getByLabel('Subject').fill('Reset for {{projectName}} ({{expiresInMinutes}} min)');
    await page.getByTestId('preview-subject').getByText('Reset for Acme (60 min)').waitFor();
    await page.getByRole('button', { name: 'Save templates' }).click();
    await page.getByText('Templates saved.').waitFor();
    await checkScreen(page, '07-settings');
    const settings = (await adminCall('GET', `/admin/projects/${project.id}`)).body.data.project;
    expect(settings.allowedOrigins).toEqual(['https://acme.example', 'http://localhost:5173']);
    expect(settings).toMatchObject({ refreshReuseResponse: 'revoke_session', refreshReuseNotice: true, auditRetentionDays: 30 });
    expect(settings).toMatchObject({ defaultMeta: { tier: 'gold' }, webauthn: { rpId: 'acme.example', rpName: 'Acme', origins: ['https://acme.example'] } });
    expect(settings.emailTemplates).toEqual({ passwordReset: { subject: 'Reset for {{projectName}} ({{expiresInMinutes}} min)' } });

    // Sandbox switch, API keys (secret shown once) and the signing key.
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('link', { name: 'Sandbox', exact: true }).click();
    await page.getByRole('heading', { name: 'API keys (Sandbox)' }).waitFor();
    await page.getByRole('button', { name: 'New key' }).click();
    await page.getByTestId('secret').waitFor();
    expect(await page.getByTestId('secret').textContent()).toMatch(/^svc_sbx_/);
    await page.getByText('BEGIN PUBLIC KEY').waitFor();
    await checkScreen(page, '08-keys-sandbox');

    // Sign-in methods: a provider (its secret write-only) and an OIDC client (its secret once).
    await page.getByRole('link', { name: 'Sign-in methods' }).click();
    await page.getByLabel('Client id').fill('gh-client-id');
    await page.getByLabel('Client secret').fill('gh-client-secret');
    await page.getByRole('button', { name: 'Save provider' }).click();
    await page.getByRole('cell', { name: 'gh-client-id' }).waitFor();
    expect(await page.content()).not.toContain('gh-client-secret');
    await page.getByLabel('Name', { exact: true }).fill('Partner portal');
    await page.getByLabel('Redirect URIs').fill('https://partner.example/callback');
    await page.getByRole('button', { name: 'Register client' }).click();
    await page
      .getByRole('cell', { name: /Partner portal/ })
      .first()
      .waitFor();
    expect(await page.getByTestId('secret').count()).toBe(2);
    await checkScreen(page, '09-sign-in-methods');
    const providers = await adminCall('GET', `/admin/projects/${project.id}/oauth-providers?environment=sandbox`);
    expect(providers.body.data.providers).toEqual([expect.objectContaining({ provider: 'github', clientId: 'gh-client-id', enabled: true })]);

    // Sandbox inbox: the magic-link mail with its working link, and the dead letters.
    await page.getByRole('link', { name: 'Sandbox inbox' }).click();
    await page.getByLabel('Recipient').fill('tester@example.com');
    await page.getByRole('button', { name: 'Open inbox' }).click();
    const link = page.locator('.links a').first();
    await link.waitFor();
    expect(await link.getAttribute('href')).toMatch(/^http:\/\/localhost:5173\/magic\?.*token=/);
    await page.getByText('No dead letters.').waitFor();
    await checkScreen(page, '10-inbox');

    // A phone's width: nothing wider than the screen, everything still reachable.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('link', { name: 'Production', exact: true }).click();
    await page.getByText('2 users').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await checkScreen(page, '11-users-390px');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin token').waitFor();
    expect((await context.request.get(`${origin}/console/api/session`)).status()).toBe(401);
    expect(failures).toEqual([]);
    await context.close();
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

  it('sets an HttpOnly, SameSite=Strict, expiring cookie and refuses it without the CSRF token', async () => {
    const signIn = await fetch(`${origin}/console/api/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: REAL_ADMIN_TOKEN }) });
    expect(signIn.status).toBe(200);
    const setCookie = signIn.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^svc_console=v1\.[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=28800$/);
    const cookie = setCookie.split(';')[0];
    const { csrfToken } = ((await signIn.json()) as Json).data;
    const list = (headers: Record<string, string>) => fetch(`${origin}/admin/projects`, { headers: { Cookie: cookie, ...headers } });
    expect((await list({ 'X-Svc-Csrf': csrfToken })).status).toBe(200);
    const without = await list({});
    expect(without.status).toBe(401);
    expect(await without.json()).toEqual({ error: 'unauthorized', message: 'The console session needs its CSRF token (X-Svc-Csrf).' });
    expect((await list({ 'X-Svc-Csrf': `${csrfToken}x` })).status).toBe(401);
    const forged = `${cookie.slice(0, -3)}abc`;
    expect((await fetch(`${origin}/admin/projects`, { headers: { Cookie: forged, 'X-Svc-Csrf': csrfToken } })).status).toBe(401);
  });

  it('signing out ends the session for good: a copy of the cookie kept from before is refused', async () => {
    const signIn = await fetch(`${origin}/console/api/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: REAL_ADMIN_TOKEN }) });
    const copied = signIn.headers.get('set-cookie')!.split(';')[0];
    const { csrfToken } = ((await signIn.json()) as Json).data;
    const headers = { Cookie: copied, 'X-Svc-Csrf': csrfToken };
    expect((await fetch(`${origin}/admin/projects`, { headers })).status).toBe(200);
    const signOut = await fetch(`${origin}/console/api/session`, { method: 'DELETE', headers });
    expect(signOut.status).toBe(200);
    expect(signOut.headers.get('set-cookie')).toMatch(/^svc_console=; .*Max-Age=0/);
    expect((await fetch(`${origin}/admin/projects`, { headers })).status).toBe(401);
    expect((await fetch(`${origin}/console/api/session`, { headers: { Cookie: copied } })).status).toBe(401);
    // The janitor forgets the sign-out only once the cookie has expired anyway.
    expect((await service.container.purge()).consoleSignOuts).toBe(0);
  });

  it('is not sent by another site: a cross-site form post and a cross-site link both arrive signed out', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${origin}/console`);
    await page.getByLabel('Admin token').fill(REAL_ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page
      .getByRole('link', { name: /^Filler / })
      .first()
      .waitFor();
    // Same site, the cookie goes along: the session answers.
    expect((await context.request.get(`${origin}/console/api/session`)).status()).toBe(200);

    await page.goto(attackerOrigin);
    await Promise.all([page.waitForURL(`${origin}/console/api/session`), page.click('#nav')]);
    expect(JSON.parse((await page.textContent('body'))!)).toEqual({ error: 'unauthorized', message: 'Authentication is required.' });

    await page.goto(attackerOrigin);
    await Promise.all([page.waitForURL(`${origin}/admin/projects`), page.evaluate(() => document.getElementById('f').submit())]);
    // Refused (a form cannot send JSON, and the cookie does not come along), and nothing was made.
    expect(['unauthorized', 'unsupported_media_type']).toContain(JSON.parse((await page.textContent('body'))!).error);
    const forged = await adminCall('GET', '/admin/projects?q=forged');
    expect(forged.body.data.projects).toEqual([]);
    await context.close();
  });
});
