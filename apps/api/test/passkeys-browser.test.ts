import request from 'supertest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SimpleWebAuthnVerifier } from '@svc/adapters-mfa';
import { ADMIN_TOKEN, buildTestApp, createProject, signUp } from './helpers';
import { addVirtualAuthenticator, describeWithChromium, launchChromium } from './browser/chromium';
import { createCredential, getAssertion, startPageServer, type PageServer } from './browser/webauthn-page';

// Genuine WebAuthn: Chromium's virtual authenticator signs real attestations and assertions on a
// page that uses @simplewebauthn/browser; the API checks them with @simplewebauthn/server.

jest.setTimeout(60_000);

const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';
type Json = Record<string, any>;

/** The response, after checking its status (register() and signIn() resolve to responses). */
function status<T extends { status: number; body: unknown }>(res: T, expected: number): T {
  if (res.status !== expected) throw new Error(`expected HTTP ${expected}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res;
}

describeWithChromium("passkeys with Chromium's virtual authenticator", () => {
  let browser: Browser;
  let site: PageServer;
  let elsewhere: PageServer;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [site, elsewhere] = await Promise.all([startPageServer(), startPageServer()]);
    browser = await launchChromium();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([site?.close(), elsewhere?.close()]);
  });

  async function setup() {
    const rejections: string[] = [];
    const webauthn = new SimpleWebAuthnVerifier({ onRejected: (reason) => rejections.push(String(reason)) });
    const { app, deps, clock } = buildTestApp({ deps: { webauthn } });
    const project = await createProject(app, { name: 'Acme', allowedOrigins: [site.origin] });
    const { accessToken, user } = await signUp(app, project.live, EMAIL, PASSWORD);
    const scope = { projectId: project.id, environment: 'production' as const };
    const context = await browser.newContext();
    contexts.push(context);
    const page: Page = await context.newPage();
    await addVirtualAuthenticator(page);
    await page.goto(`${site.origin}/`);

    const call = (method: 'get' | 'post' | 'delete', path: string, body?: object, bearer?: string) => {
      let req = request(app)[method](path).set('X-API-Key', project.live);
      if (bearer) req = req.set('Authorization', `Bearer ${bearer}`);
      return body ? req.send(body) : req;
    };
    const register = async (name = 'Laptop') => {
      const options = (await call('post', '/api/auth/passkeys/register/options', undefined, accessToken).expect(200)).body.data;
      const response = await createCredential(page, options);
      return call('post', '/api/auth/passkeys/register/verify', { response, name }, accessToken);
    };
    const loginOptions = async (email = EMAIL) => (await call('post', '/api/auth/passkeys/login/options', { email }).expect(200)).body.data as Json;
    const verify = (challengeId: string, response: Json, email = EMAIL) => call('post', '/api/auth/passkeys/login/verify', { challengeId, email, response });
    const signIn = async () => {
      const { challengeId, options } = await loginOptions();
      return verify(challengeId, await getAssertion(page, options));
    };
    return { app, deps, clock, project, scope, user, accessToken, page, rejections, call, register, loginOptions, verify, signIn };
  }

  it('registers a passkey, lists it without key material, and signs in with it', async () => {
    const { register, signIn, call, accessToken, clock, project, app } = await setup();
    const registered = status(await register(' Work laptop '), 200);
    expect(registered.body.data.passkey).toEqual({ id: expect.any(String), name: 'Work laptop', createdAt: clock.now().toISOString(), lastUsedAt: null });
    clock.advance(60);
    const signedIn = status(await signIn(), 200);
    expect(Object.keys(signedIn.body.data).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'user']);
    expect(signedIn.body.data.user).toMatchObject({ email: EMAIL, lastLoginAt: clock.now().toISOString() });
    const me = await request(app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${signedIn.body.data.accessToken}`);
    expect(me.body.data.user.lastLoginAt).toBe(clock.now().toISOString());
    const listed = (await call('get', '/api/auth/passkeys', undefined, accessToken).expect(200)).body.data.passkeys;
    expect(listed).toEqual([{ ...registered.body.data.passkey, lastUsedAt: clock.now().toISOString() }]);
  });

  it('gives unknown e-mails options of the same shape, and no sign-in', async () => {
    const { register, loginOptions, verify, page } = await setup();
    status(await register(), 200);
    const known = await loginOptions();
    const unknown = await loginOptions('nobody@example.com');
    expect(Object.keys(unknown).sort()).toEqual(['challengeId', 'options']);
    expect(Object.keys(unknown.options).sort()).toEqual(Object.keys(known.options).sort());
    expect(unknown.options.allowCredentials).toEqual(known.options.allowCredentials);
    const assertion = await getAssertion(page, unknown.options);
    expect((await verify(unknown.challengeId, assertion, 'nobody@example.com').expect(401)).body.error).toBe('invalid_passkey');
  });

  it('refuses ceremonies on an origin the project does not allow', async () => {
    const { register, loginOptions, verify, page, rejections } = await setup();
    await page.goto(`${elsewhere.origin}/`); // same RP ID (localhost), another origin
    expect(status(await register('Other'), 401).body.error).toBe('invalid_passkey');
    await page.goto(`${site.origin}/`);
    status(await register(), 200);
    await page.goto(`${elsewhere.origin}/`);
    const { challengeId, options } = await loginOptions();
    expect((await verify(challengeId, await getAssertion(page, options)).expect(401)).body.error).toBe('invalid_passkey');
    expect(rejections.join('\n')).toMatch(/origin/i);
  });

  it('refuses an assertion for an RP ID the project no longer uses', async () => {
    const { register, loginOptions, verify, page, project, app, clock } = await setup();
    status(await register(), 200);
    const { challengeId, options } = await loginOptions();
    const assertion = await getAssertion(page, options);
    await request(app)
      .patch(`/admin/projects/${project.id}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ webauthn: { rpId: 'example.com', rpName: 'Acme', origins: ['https://example.com'] } })
      .expect(200);
    clock.advance(11); // API-key resolutions (with their project) are cached for 10 s
    expect((await verify(challengeId, assertion).expect(401)).body.error).toBe('invalid_passkey');
  });

  it('refuses a wrong challenge and a replayed one', async () => {
    const { register, loginOptions, verify, page } = await setup();
    status(await register(), 200);
    const first = await loginOptions();
    const second = await loginOptions();
    const forFirst = await getAssertion(page, first.options);
    expect((await verify(second.challengeId, forFirst).expect(401)).body.error).toBe('invalid_passkey');
    const forSecond = await getAssertion(page, (await loginOptions()).options);
    const third = await loginOptions();
    const answer = await getAssertion(page, third.options);
    await verify(third.challengeId, answer).expect(200);
    expect((await verify(third.challengeId, answer).expect(401)).body.error).toBe('invalid_passkey');
    expect((await verify(second.challengeId, forSecond).expect(401)).body.error).toBe('invalid_passkey');
  });

  it('refuses a sign counter that went backwards', async () => {
    const { register, signIn, deps, scope, user } = await setup();
    status(await register(), 200);
    status(await signIn(), 200);
    const [passkey] = await deps.passkeys.listForUser(scope, user.id);
    expect(passkey.counter).toBeGreaterThan(0);
    // As if a clone of the authenticator had been used meanwhile: the stored counter jumps ahead.
    expect(await deps.passkeys.recordUse(scope, passkey.credentialId, { counter: passkey.counter + 1000, at: new Date() })).toBe(true);
    expect(status(await signIn(), 401).body.error).toBe('invalid_passkey');
  });

  it('a revoked passkey signs in no more', async () => {
    const { register, signIn, call, accessToken } = await setup();
    const { id } = status(await register(), 200).body.data.passkey;
    status(await signIn(), 200);
    expect((await call('delete', `/api/auth/passkeys/${id}`, undefined, accessToken).expect(200)).body).toEqual({ data: { success: true } });
    expect((await call('get', '/api/auth/passkeys', undefined, accessToken).expect(200)).body.data.passkeys).toEqual([]);
    expect(status(await signIn(), 401).body.error).toBe('invalid_passkey');
    expect((await call('delete', `/api/auth/passkeys/${id}`, undefined, accessToken).expect(404)).body.error).toBe('not_found');
  });

  it('signs a TOTP user in without the second factor; password login still asks for it', async () => {
    const { register, signIn, deps, scope, user, call } = await setup();
    status(await register(), 200);
    const sealedSecret = deps.secretBox.seal('JBSWY3DPEHPK3PXP', `totp:${scope.projectId}:${scope.environment}:${user.id}`);
    await deps.twoFactor.beginTotp(scope, user.id, { sealedSecret, createdAt: new Date() });
    await deps.twoFactor.enableTotp(scope, user.id, { sealedSecret, usedStep: 1, recoveryCodeHashes: [], enabledAt: new Date() });
    expect((await call('post', '/api/auth/login', { email: EMAIL, password: PASSWORD }).expect(200)).body.data.twoFactorRequired).toBe(true);
    expect(status(await signIn(), 200).body.data.accessToken).toEqual(expect.any(String));
  });
});
