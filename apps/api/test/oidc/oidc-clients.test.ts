import { api, startInstance, type OidcInstance } from './harness';
import { authorize, CALLBACK, createTenant, createUser, kidOf, oauthError, openid, registerClient, relyingParty, signIn, type Tenant } from './steps';

// OIDC clients through the admin API, and what a client's lifecycle does to its flows.
describe('hosted OIDC provider: clients through the admin API', () => {
  let instance: OidcInstance;
  let tenant: Tenant;
  const admin = () => api(instance.base).admin;

  beforeAll(async () => {
    instance = await startInstance();
    tenant = await createTenant(instance);
  }, 30_000);
  afterAll(() => instance?.close());

  it('registers confidential and public clients, lists them without secrets, deletes them', async () => {
    const path = `/projects/${tenant.projectId}/oidc-clients`;
    const confidential = await admin()('POST', path, { environment: 'production', name: 'Web app', redirectUris: [CALLBACK] });
    expect(confidential.status).toBe(201);
    expect(confidential.body.data).toEqual({ clientId: expect.any(String), clientSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    instance.deps.clock.advance(1);
    const spa = await admin()('POST', path, { environment: 'sandbox', name: 'SPA', redirectUris: ['http://localhost:5173/cb'], public: true });
    expect(spa.body.data).toEqual({ clientId: expect.any(String) });
    const listed = await admin()('GET', path);
    expect(listed.body.data.clients).toEqual([
      { clientId: confidential.body.data.clientId, environment: 'production', name: 'Web app', redirectUris: [CALLBACK], postLogoutRedirectUris: [], public: false, createdAt: expect.any(String) },
      { clientId: spa.body.data.clientId, environment: 'sandbox', name: 'SPA', redirectUris: ['http://localhost:5173/cb'], postLogoutRedirectUris: [], public: true, createdAt: expect.any(String) },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(confidential.body.data.clientSecret);
    expect((await admin()('GET', `${path}?environment=sandbox`)).body.data.clients).toHaveLength(1);
    expect((await admin()('DELETE', `${path}/${spa.body.data.clientId}`)).body).toEqual({ data: { success: true } });
    expect((await admin()('DELETE', `${path}/${spa.body.data.clientId}`)).status).toBe(404);
  });

  it('refuses bad registrations with 400, unknown projects with 404, and no admin token with 401', async () => {
    const path = `/projects/${tenant.projectId}/oidc-clients`;
    const bad = [
      { name: 'x', redirectUris: [CALLBACK] },
      { environment: 'staging', name: 'x', redirectUris: [CALLBACK] },
      { environment: 'production', name: '', redirectUris: [CALLBACK] },
      { environment: 'production', name: 'x', redirectUris: [] },
      { environment: 'production', name: 'x', redirectUris: ['http://rp.example.test/cb'] },
      { environment: 'production', name: 'x', redirectUris: [`${CALLBACK}#fragment`] },
      { environment: 'production', name: 'x', redirectUris: [CALLBACK], public: 'yes' },
    ];
    for (const body of bad) expect([(await admin()('POST', path, body)).status, JSON.stringify(body)]).toEqual([400, JSON.stringify(body)]);
    expect((await admin()('POST', `/projects/${crypto.randomUUID()}/oidc-clients`, { environment: 'production', name: 'x', redirectUris: [CALLBACK] })).status).toBe(404);
    expect((await api(instance.base).raw('GET', `/admin${path}`, {})).status).toBe(401);
  });

  it("a wrong client secret is invalid_client; a deleted client's tokens stop working", async () => {
    const oc = await openid();
    const client = await registerClient(instance, tenant);
    const userId = await createUser(instance, tenant.live, 'del@example.test');
    const config = await relyingParty(tenant.issuer, client);
    const { tokens } = await signIn(instance, config, tenant.live, userId, { params: { scope: 'openid offline_access', prompt: 'consent' } });
    const wrong = await relyingParty(tenant.issuer, { clientId: client.clientId, clientSecret: 'not-the-secret' });
    expect(await oauthError(oc.refreshTokenGrant(wrong, tokens.refresh_token!))).toBe('invalid_client');
    await admin()('DELETE', `/projects/${tenant.projectId}/oidc-clients/${client.clientId}`);
    expect(await oauthError(oc.fetchUserInfo(config, tokens.access_token, userId))).toBe('invalid_token');
    expect(await oauthError(oc.refreshTokenGrant(config, tokens.refresh_token!))).toBe('invalid_client');
  }, 30_000);

  it('RP-initiated logout: confirm page, then back to the registered post-logout URI', async () => {
    const client = await registerClient(instance, tenant, { postLogoutRedirectUris: ['https://rp.example.test/bye'] });
    const config = await relyingParty(tenant.issuer, client);
    const userId = await createUser(instance, tenant.live, 'bye@example.test');
    const { tokens, started } = await signIn(instance, config, tenant.live, userId);
    const oc = await openid();
    const url = oc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'https://rp.example.test/bye', state: 's1' });
    const confirm = await started.browser.get(url);
    expect(confirm.status).toBe(200);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.text)?.[1];
    expect(xsrf).toBeDefined();
    const done = await started.browser.postForm(`${tenant.issuer}/end-session/confirm`, { xsrf: xsrf!, logout: 'yes' });
    expect(done.location).toBe('https://rp.example.test/bye?state=s1');
  }, 30_000);

  it('picks up a signing-key rotation: new ID tokens carry the new kid', async () => {
    const client = await registerClient(instance, tenant, { environment: 'sandbox' });
    const config = await relyingParty(tenant.issuer, client);
    const userId = await createUser(instance, tenant.sandbox, 'rot@example.test');
    const rotated = await admin()('POST', `/projects/${tenant.projectId}/environments/sandbox/signing-keys/rotate`);
    // The issuer re-reads keys at most 10 s later; a project update is another change it notices.
    await admin()('PATCH', `/projects/${tenant.projectId}`, { name: 'Acme (rotated)' });
    let kid = '';
    for (let attempt = 0; attempt < 25 && kid !== rotated.body.data.kid; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 500));
      const started = await authorize(instance, config);
      kid = started.requestToken ? kidOf((await signIn(instance, config, tenant.sandbox, userId)).tokens.id_token!) : '';
    }
    expect(kid).toBe(rotated.body.data.kid);
  }, 60_000);
});
