import { api, startInstance, type OidcInstance } from './harness';
import { authorize, CALLBACK, createTenant, createUser, grant, oauthError, openid, registerClient, relyingParty, signIn, type Tenant } from './steps';
import type { Configuration } from 'openid-client';

// What the provider and `POST /api/auth/oidc/grant` refuse, each observed where the contract says it shows:
// at the client's redirect_uri, as JSON from the issuer, or as the API's error envelope.
describe('hosted OIDC provider: refusals', () => {
  let instance: OidcInstance;
  let tenant: Tenant;
  let config: Configuration;
  let userId: string;

  beforeAll(async () => {
    instance = await startInstance();
    tenant = await createTenant(instance);
    config = await relyingParty(tenant.issuer, await registerClient(instance, tenant));
    userId = await createUser(instance, tenant.live, 'ada@example.test', { name: 'Ada' });
  }, 30_000);
  afterAll(() => instance?.close());

  it('denial: the resume URL brings access_denied to the client, and no code', async () => {
    const started = await authorize(instance, config);
    const denied = await grant(instance, tenant.live, { requestToken: started.requestToken, approved: false });
    expect(denied.status).toBe(200);
    const resumed = await started.browser.get(denied.body.data.redirectUrl);
    const callback = new URL(resumed.location!);
    expect(callback.origin + callback.pathname).toBe(CALLBACK);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(started.state);
    expect(callback.searchParams.has('code')).toBe(false);
  }, 30_000);

  it('scope narrowing: only the granted scopes reach the tokens and userinfo', async () => {
    const oc = await openid();
    const { tokens } = await signIn(instance, config, tenant.live, userId, { scopes: ['openid', 'email'] });
    expect(tokens.scope?.split(' ').sort()).toEqual(['email', 'openid']);
    expect(tokens.claims()).not.toHaveProperty('name');
    expect(await oc.fetchUserInfo(config, tokens.access_token, userId)).toEqual({ sub: userId, email: 'ada@example.test', email_verified: false });
  }, 30_000);

  it('refuses scopes without openid: at authorize (invalid_scope at the client) and at the grant (400)', async () => {
    const withoutOpenid = await authorize(instance, config, { scope: 'email profile', nonce: '' });
    const error = new URL(withoutOpenid.hop.location!);
    expect(error.origin + error.pathname).toBe(CALLBACK);
    expect(error.searchParams.get('error')).toBe('invalid_scope');
    const started = await authorize(instance, config);
    for (const scopes of [['email'], ['openid', 'phone']]) {
      const res = await grant(instance, tenant.live, { requestToken: started.requestToken, approved: true, userId, scopes });
      expect([res.status, res.body.error]).toEqual([400, 'validation_error']);
    }
    // A refused decision does not use the token up: the login page may try again.
    expect((await grant(instance, tenant.live, { requestToken: started.requestToken, approved: true, userId })).status).toBe(200);
  }, 30_000);

  it('never redirects to an unregistered redirect_uri: JSON error from the issuer instead', async () => {
    for (const redirect_uri of ['https://evil.example.test/callback', `${CALLBACK}/extra`, `${CALLBACK}?x=1`]) {
      const started = await authorize(instance, config, { redirect_uri });
      expect(started.hop.status).toBe(400);
      expect(started.hop.location).toBeNull();
      expect(JSON.parse(started.hop.text)).toEqual({ error: 'invalid_redirect_uri', error_description: expect.any(String) });
    }
  }, 30_000);

  it('a replayed code fails, and the tokens issued from it are revoked', async () => {
    const oc = await openid();
    const { tokens, callback, started } = await signIn(instance, config, tenant.live, userId, {
      params: { scope: 'openid email offline_access', prompt: 'consent' },
    });
    await expect(oc.fetchUserInfo(config, tokens.access_token, userId)).resolves.toMatchObject({ sub: userId });
    await expect(oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedNonce: started.nonce, expectedState: started.state })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect(await oauthError(oc.fetchUserInfo(config, tokens.access_token, userId))).toBe('invalid_token');
    await expect(oc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  }, 30_000);

  it('refuses a reused, forged or expired request_token with 401 invalid_token', async () => {
    const started = await authorize(instance, config);
    expect((await grant(instance, tenant.live, { requestToken: started.requestToken, approved: true, userId })).status).toBe(200);
    const again = await grant(instance, tenant.live, { requestToken: started.requestToken, approved: true, userId });
    expect([again.status, again.body.error]).toEqual([401, 'invalid_token']);
    const forged = await grant(instance, tenant.live, { requestToken: `${started.requestToken!.slice(0, -2)}AA`, approved: false });
    expect([forged.status, forged.body.error]).toEqual([401, 'invalid_token']);
    const late = await authorize(instance, config);
    instance.deps.clock.advance(10 * 60);
    const expired = await grant(instance, tenant.live, { requestToken: late.requestToken, approved: false });
    instance.deps.clock.advance(-10 * 60);
    expect([expired.status, expired.body.error]).toEqual([401, 'invalid_token']);
  }, 30_000);

  it("refuses a user of the other environment, and the other environment's key", async () => {
    const sandboxUser = await createUser(instance, tenant.sandbox, 'ada@example.test');
    const started = await authorize(instance, config);
    const foreignUser = await grant(instance, tenant.live, { requestToken: started.requestToken, approved: true, userId: sandboxUser });
    expect([foreignUser.status, foreignUser.body.error]).toEqual([404, 'user_not_found']);
    const foreignKey = await grant(instance, tenant.sandbox, { requestToken: started.requestToken, approved: true, userId: sandboxUser });
    expect([foreignKey.status, foreignKey.body.error]).toEqual([401, 'invalid_token']);
  }, 30_000);

  it('refuses a banned user with 403 user_banned', async () => {
    const banned = await createUser(instance, tenant.live, 'banned@example.test');
    await api(instance.base).admin('POST', `/projects/${tenant.projectId}/environments/production/users/${banned}/ban`);
    const started = await authorize(instance, config);
    const res = await grant(instance, tenant.live, { requestToken: started.requestToken, approved: true, userId: banned });
    expect([res.status, res.body.error]).toEqual([403, 'user_banned']);
  }, 30_000);

  it('requires PKCE of public clients', async () => {
    const publicConfig = await relyingParty(tenant.issuer, await registerClient(instance, tenant, { public: true }));
    const started = await authorize(instance, publicConfig, { code_challenge: '', code_challenge_method: '' });
    const error = new URL(started.hop.location!);
    expect(error.searchParams.get('error')).toBe('invalid_request');
    expect(error.searchParams.get('error_description')).toMatch(/PKCE/);
  }, 30_000);

  it('answers plan_upgrade_required on POST /api/auth/oidc/grant and an OAuth error at the issuer of a FREE project', async () => {
    const free = await createTenant(instance, { plan: 'FREE' });
    await registerClient(instance, free);
    for (const path of ['/.well-known/openid-configuration', '/authorize?client_id=x', '/jwks']) {
      const res = await fetch(free.issuer + path, { redirect: 'manual' });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: 'access_denied', error_description: expect.stringContaining('Pro plan') });
    }
    const res = await grant(instance, free.live, { requestToken: 'anything', approved: false });
    expect([res.status, res.body.error]).toEqual([403, 'plan_upgrade_required']);
  }, 30_000);

  it('closes the issuer of a project downgraded from Pro at once, though it was cached a moment before', async () => {
    const pro = await createTenant(instance);
    expect((await fetch(`${pro.issuer}/.well-known/openid-configuration`)).status).toBe(200);
    const patched = await api(instance.base).admin('PATCH', `/projects/${pro.projectId}`, { plan: 'SOLO' });
    expect(patched.status).toBe(200);
    const res = await fetch(`${pro.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'access_denied', error_description: expect.stringContaining('Pro plan') });
  }, 30_000);

  it('answers login_required to prompt=none (the login page decides every authorization)', async () => {
    const started = await authorize(instance, config, { prompt: 'none' });
    expect(new URL(started.hop.location!).searchParams.get('error')).toBe('login_required');
  }, 30_000);

  it('answers temporarily_unavailable at the client while the project has no oidcLoginUrl', async () => {
    const unconfigured = await createTenant(instance, { oidcLoginUrl: null });
    const rp = await relyingParty(unconfigured.issuer, await registerClient(instance, unconfigured));
    const started = await authorize(instance, rp);
    expect(new URL(started.hop.location!).searchParams.get('error')).toBe('temporarily_unavailable');
  }, 30_000);

  it('answers an unknown issuer with a 404 OAuth error', async () => {
    for (const id of [crypto.randomUUID(), 'not-a-uuid']) {
      const res = await fetch(`${instance.base}/api/oidc/${id}/.well-known/openid-configuration`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
  });
});
