import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { describeWithChromium, launchChromium } from './browser/chromium';
import { apiCalls, buildConsole, checkScreen } from './support/console-browser';
import { listenRealApp, REAL_ADMIN_TOKEN, type ListeningApp } from './support/real-app';

// The admin console in Chromium against the real service (SQLite): sign-in, every screen, an
// axe-core check and a screenshot of each (apps/api/test-output/console/, gitignored), and the
// session cookie refused cross-site and without its CSRF token. The audit log and webhook screens
// have a file of their own (console-events-browser.test.ts).

jest.setTimeout(120_000);

type Json = Record<string, any>;
// What the functions passed to page.evaluate read: they run in the page, not in Node.
declare const document: any, localStorage: unknown, sessionStorage: unknown;

describeWithChromium('the admin console in Chromium', () => {
  let service: ListeningApp;
  let browser: Browser;
  let attacker: Server;
  let origin: string;
  let attackerOrigin: string;
  let project: { id: string; live: string; sandbox: string };

  const { adminCall, keyCall } = apiCalls(() => origin);

  beforeAll(async () => {
    // Built from the sources under test (esbuild takes well under a second), never a stale bundle.
    buildConsole();
    service = await listenRealApp();
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
