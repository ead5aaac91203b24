import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { OtpauthTotp, SimpleWebAuthnVerifier } from '@svc/adapters-mfa';
import { freePort, spawnStandaloneProxy, waitForHttp, type StandaloneProxy } from '../../proxy/test/standalone';
import { startRealApi, type RealApi } from '../../../packages/sdk/test/real-api';
import { totpCode } from '../../../packages/sdk/test/totp-code';
import { createHash } from 'node:crypto';
import { renderSVG } from 'uqr';
import { addVirtualAuthenticator, describeWithChromium, launchChromium } from '../../api/test/browser/chromium';
import { screenshot } from './browser';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

jest.setTimeout(60_000);

const PASSWORD = 'correct horse battery';

// The demo in headless Chromium, served by the standalone proxy (`pnpm start:proxy` as its own
// process) over the real API with the real WebAuthn and TOTP adapters, all on loopback.
// localhost, not 127.0.0.1: passkeys need a domain as relying-party id (an IP cannot be one).
describeWithChromium('demo app in Chromium', () => {
  let api: RealApi;
  let proxy: StandaloneProxy;
  let browser: Browser;
  let url: string;
  let projectId: string;
  const rejections: unknown[] = [];

  beforeAll(async () => {
    api = await startRealApi({ overrides: { webauthn: new SimpleWebAuthnVerifier({ onRejected: (reason) => rejections.push(reason) }), totp: new OtpauthTotp() } });
    const port = await freePort();
    url = `http://localhost:${port}`;
    // Mail links open the demo's page, as the embedded default's demo project has them.
    const project = await api.createProject({ name: 'Fieldnotes', plan: 'FREE', allowedOrigins: [url], magicLinkUrl: `${url}/`, passwordResetUrl: `${url}/` });
    projectId = project.id;
    proxy = spawnStandaloneProxy({
      SVC_API_KEY: project.sandbox,
      SVC_API_URL: api.url,
      PROXY_PORT: String(port),
      PROXY_STATIC_DIR: join(__dirname, '..'),
    });
    [browser] = await Promise.all([launchChromium(), waitForHttp(`${url}/healthz`, proxy)]);
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.stop();
    await api?.close();
  });

  const view = (page: Page, name: string) => page.locator(`[data-view="${name}"]`);
  const emailOf = (name: string) => `${name}.${Date.now()}@fieldnotes.example`;

  async function signUp(page: Page, email: string): Promise<void> {
    await page.goto(url);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await view(page, 'sign-up').getByLabel('Work email').fill(email);
    await view(page, 'sign-up').getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await view(page, 'sign-in').getByLabel('Email', { exact: true }).fill(email);
    await view(page, 'sign-in').getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  async function signOut(page: Page): Promise<void> {
    await page.locator('[data-view="account"]').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Welcome back', exact: true }).waitFor();
  }

  const accountEmail = (page: Page) => page.locator('[data-view="account"] .lead[data-field="email"]').textContent();

  it('signs up with validation, stays signed in across reloads (and an expired access cookie), signs out', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 860 } });
    await page.goto(url);
    await page.getByRole('heading', { name: 'Welcome back', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Continue with GitHub' }).isVisible()).toBe(false);
    await screenshot(page, '01-sign-in');

    await page.getByRole('link', { name: 'Create an account' }).click();
    await view(page, 'sign-up').getByLabel('Work email').fill('not-an-email');
    await view(page, 'sign-up').getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(await page.locator('[data-form="sign-up"] [data-error-for="email"]').textContent()).toContain('name@company.com');
    expect(await page.locator('[data-form="sign-up"] [data-error-for="password"]').textContent()).toBe('Use at least 8 characters.');
    await screenshot(page, '02-sign-up-validation');

    const email = emailOf('ada');
    await view(page, 'sign-up').getByLabel('Work email').fill(email);
    await view(page, 'sign-up').getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    expect(await accountEmail(page)).toBe(email);
    expect(await page.locator('[data-field="id"]').textContent()).toMatch(/^[0-9a-f-]{36}$/);
    expect(await page.getByText('Secured by svc').isVisible()).toBe(true); // FREE plan
    await screenshot(page, '03-account');

    // The page's scripts never see a token: both cookies are HttpOnly.
    expect(await page.evaluate('document.cookie')).toBe('');
    await page.reload();
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    expect(await accountEmail(page)).toBe(email);

    api.clock.advance(16 * 60); // the access token expires; the proxy refreshes through the refresh cookie
    await page.reload();
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    expect(await accountEmail(page)).toBe(email);

    await signOut(page);
    expect(await page.getByRole('status').textContent()).toContain('signed out');
    await page.reload();
    await page.getByRole('heading', { name: 'Welcome back', exact: true }).waitFor();

    await signIn(page, email, 'wrong password');
    await page.getByText('don’t match an account').waitFor();
    await screenshot(page, '04-sign-in-error');
    await page.close();
  });

  it('lists the devices and ends another one, changes the password, and deletes the account', async () => {
    const laptop = await browser.newContext({ viewport: { width: 1200, height: 1400 }, userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' });
    const phone = await browser.newContext({ viewport: { width: 400, height: 800 }, userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0) Safari/604.1' });
    const page = await laptop.newPage();
    const other = await phone.newPage();
    const email = emailOf('devices');
    await signUp(page, email);
    await other.goto(url);
    await signIn(other, email, PASSWORD);
    await other.getByRole('heading', { name: 'Your account', exact: true }).waitFor();

    await page.reload();
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    const devices = page.locator('[data-field="devices"] li');
    await devices.nth(1).waitFor();
    expect(await devices.count()).toBe(2);
    expect(await page.locator('[data-field="devices"]').textContent()).toContain('This device');
    expect(await page.locator('[data-field="devices"]').textContent()).toContain('Firefox on Linux');
    await screenshot(page, '08-devices');
    await page.getByRole('button', { name: 'End session on Safari on iPhone' }).click();
    await page.getByText('That session has ended').waitFor();
    // The list is read again after the notice: wait for the ended device to leave it.
    await devices.nth(1).waitFor({ state: 'detached' });
    expect(await devices.count()).toBe(1);
    await other.reload();
    await other.getByRole('heading', { name: 'Welcome back', exact: true }).waitFor();

    const passwordForm = page.locator('[data-form="change-password"]');
    await passwordForm.getByLabel('Current password').fill('not my password');
    await passwordForm.getByLabel('New password').fill('a fresh passphrase');
    await passwordForm.getByRole('button', { name: 'Change password' }).click();
    await passwordForm.getByText('That password isn’t right.').waitFor();
    await screenshot(page, '09-change-password-error');
    await passwordForm.getByLabel('Current password').fill(PASSWORD);
    await passwordForm.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();

    const deleteForm = page.locator('[data-form="delete-account"]');
    await deleteForm.getByLabel('Password to confirm').fill('a fresh passphrase');
    await screenshot(page, '10-delete-account');
    await deleteForm.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByText('Your account has been deleted.').waitFor();
    await signIn(page, email, 'a fresh passphrase');
    await page.getByText('don’t match an account').waitFor();
    await laptop.close();
    await phone.close();
  });

  it('adds a passkey, then signs in with it through the virtual authenticator', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
    const page = await context.newPage();
    await addVirtualAuthenticator(page);
    const email = emailOf('grace');
    await signUp(page, email);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Passkey added').waitFor();
    await signOut(page);

    await view(page, 'sign-in').getByLabel('Email', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    expect(await accountEmail(page)).toBe(email);
    expect(await page.getByRole('status').textContent()).toContain('passkey');
    await screenshot(page, '05-signed-in-with-passkey');
    expect(rejections).toEqual([]);
    await context.close();
  });

  it('turns on an authenticator app and then asks for its code at sign-in', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    const email = emailOf('katherine');
    await signUp(page, email);
    await page.getByRole('button', { name: 'Set up' }).click();
    await page.getByLabel('Code from the app').waitFor();
    const secret = await page.locator('[data-field="totpSecret"]').getAttribute('data-secret');
    // The QR code is the otpauth:// URL the API answered (the link beside it), drawn by uqr.
    const otpauthUrl = await page.locator('[data-field="totpLink"]').getAttribute('href');
    expect(otpauthUrl).toContain(`secret=${secret}`);
    // The modules drawn (the path's outline), compared by digest to keep a failure readable.
    const drawn = await page.locator('[data-field="totpQr"] svg path').getAttribute('d');
    const expected = /<path[^>]* d="([^"]+)"/.exec(renderSVG(otpauthUrl!, { border: 2 }))![1];
    expect(sha256(drawn ?? '')).toBe(sha256(expected));
    await screenshot(page, '06a-totp-qr-code');
    await page.getByLabel('Code from the app').fill(totpCode(secret!, api.clock.now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('Save your recovery codes').waitFor();
    expect(await page.locator('[data-field="recoveryCodes"] li').count()).toBe(10);
    await screenshot(page, '06-recovery-codes');
    await signOut(page);

    await signIn(page, email, PASSWORD);
    await page.getByRole('heading', { name: 'Two-step verification', exact: true }).waitFor();
    await screenshot(page, '07-totp-step');
    await page.getByLabel('Verification code').fill('123456');
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await page.getByText('That code didn’t work').waitFor();
    api.clock.advance(30); // the enrolment code's step is used up; the app shows the next one
    await page.getByLabel('Verification code').fill(totpCode(secret!, api.clock.now()));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    expect(await accountEmail(page)).toBe(email);
    await page.close();
  });

  it('confirms the email address with the mailed code, or by opening the mailed link', async () => {
    await api.admin('PATCH', `/admin/projects/${projectId}`, { emailVerification: 'optional', emailVerificationUrl: `${url}/` });
    api.clock.advance(11); // past the API-key cache, which holds the project for 10 seconds
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      await page.route('**/config.json', (route) => route.fulfill({ json: { appName: 'Fieldnotes', routePrefix: '/api/session', oauthProviders: [], emailVerification: true } }));
      const email = emailOf('verify');
      await signUp(page, email);
      const banner = page.locator('[data-panel="verify-email"]');
      await banner.waitFor();
      expect(await page.locator('[data-field="emailVerified"]').textContent()).toBe('Not yet');
      await screenshot(page, '11-verify-email');
      await banner.getByLabel('Code from the email').fill('000000' === (await api.lastSandboxCode(projectId, email)) ? '111111' : '000000');
      await banner.getByRole('button', { name: 'Confirm' }).click();
      await banner.getByText('That link or code didn’t work.').waitFor();
      await banner.getByLabel('Code from the email').fill(await api.lastSandboxCode(projectId, email));
      await banner.getByRole('button', { name: 'Confirm' }).click();
      await page.getByText('Your email address is confirmed.').waitFor();
      expect(await page.locator('[data-field="emailVerified"]').textContent()).toBe('Yes');
      expect(await banner.isHidden()).toBe(true);

      const other = emailOf('link');
      await signOut(page);
      await signUp(page, other);
      await page.goto((await api.lastSandboxLink(projectId, other)).href);
      await page.getByText('Your email address is confirmed.').waitFor();
      expect(await page.locator('[data-field="emailVerified"]').textContent()).toBe('Yes');
      await page.close();
    } finally {
      await api.admin('PATCH', `/admin/projects/${projectId}`, { emailVerification: 'off' });
      api.clock.advance(11);
    }
  });

  /** The link of the newest sandbox mail of `template` to `email`, once the request's after-answer work queued it. */
  async function mailedLink(email: string, template: 'magic_link' | 'password_reset'): Promise<string> {
    for (let turn = 0; turn < 200; turn += 1) {
      const { body } = await api.admin('GET', `/admin/projects/${projectId}/environments/sandbox/outbox?email=${encodeURIComponent(email)}`);
      const mail = body.data.mails.find((m: { template: string }) => m.template === template);
      if (mail) return mail.links[0];
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no ${template} mail to ${email}`);
  }

  it('signs in from the emailed magic link, and sets a new password from the reset mail', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const email = emailOf('mailed');
    await page.goto(url);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await view(page, 'magic-link-request').getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await page.getByRole('heading', { name: 'Check your email', exact: true }).waitFor();
    expect(await page.locator('[data-field="checkEmail"]').textContent()).toBe(`We sent a sign-in link to ${email}.`);
    await screenshot(page, '12-magic-link-sent');

    // The mail's link opens the demo's page; the token is redeemed (through the proxy) only when
    // the user presses Continue, so a mail scanner opening the link cannot use it up.
    const magicLink = await mailedLink(email, 'magic_link');
    expect(magicLink).toMatch(new RegExp(`^${url}/\\?token=ml_sbx_[A-Za-z0-9_-]+&project=${projectId}$`));
    const scanner = await browser.newPage();
    await scanner.goto(magicLink);
    await scanner.getByRole('button', { name: 'Continue' }).waitFor();
    await scanner.close();
    await page.goto(magicLink);
    await page.getByRole('heading', { name: 'Sign in to Fieldnotes', exact: true }).waitFor();
    expect(page.url()).toBe(`${url}/`); // the token left the address bar
    await screenshot(page, '13a-magic-link-page');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    expect(await accountEmail(page)).toBe(email);
    expect(await page.getByRole('status').textContent()).toBe('Signed in with your email link.');
    expect(await page.evaluate('document.cookie')).toBe('');
    await screenshot(page, '13-signed-in-by-magic-link');
    await signOut(page);
    // A link works once.
    await page.goto(magicLink);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('That sign-in link didn’t work').waitFor();
    await page.getByRole('heading', { name: 'Welcome back', exact: true }).waitFor();

    // The account has no password yet (the link created it): a reset sets one.
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await view(page, 'reset-request').getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Email me a reset link' }).click();
    await page.getByRole('heading', { name: 'Check your email', exact: true }).waitFor();
    const resetLink = await mailedLink(email, 'password_reset');
    expect(resetLink).toMatch(new RegExp(`^${url}/\\?token=pr_sbx_[A-Za-z0-9_-]+&project=${projectId}$`));
    await page.goto(resetLink);
    const form = view(page, 'reset-password');
    await page.getByRole('heading', { name: 'Choose a new password', exact: true }).waitFor();
    expect(page.url()).toBe(`${url}/`);
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('New password').fill('short');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    expect(await form.locator('[data-error-for="newPassword"]').textContent()).toBe('Use at least 8 characters.');
    await screenshot(page, '14-reset-password');
    await form.getByLabel('New password').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    expect(await accountEmail(page)).toBe(email);
    expect(await page.getByRole('status').textContent()).toBe('Your password has been changed. Welcome back.');
    await screenshot(page, '15-signed-in-after-reset');

    await signOut(page);
    await signIn(page, email, 'a brand new passphrase');
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    // The reset link is spent too.
    await signOut(page);
    await page.goto(resetLink);
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('New password').fill('yet another passphrase');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await form.getByText('That reset link didn’t work').waitFor();
    await page.close();
  });

  it('shows "Continue with GitHub" only when config.json lists the provider', async () => {
    const page = await browser.newPage();
    await page.route('**/config.json', (route) => route.fulfill({ json: { appName: 'Fieldnotes', routePrefix: '/api/session', oauthProviders: ['github'] } }));
    await page.goto(url);
    await page.getByRole('button', { name: 'Continue with GitHub' }).waitFor();
    await page.close();
  });
});
