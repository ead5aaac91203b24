import { api, startInstance, type OidcInstance } from './harness';
import { CALLBACK, createTenant, createUser, kidOf, oauthError, openid, registerClient, relyingParty, signIn, type Tenant } from './steps';

// The hosted OIDC provider driven end to end by openid-client as the relying party: every browser
// hop by hand against the real app on a loopback port, real RS256 keys, in-memory storage.
describe('hosted OIDC provider: the authorization code flow', () => {
  let instance: OidcInstance;
  let tenant: Tenant;

  beforeAll(async () => {
    instance = await startInstance();
    tenant = await createTenant(instance);
  }, 30_000);
  afterAll(() => instance?.close());

  it('publishes a discovery document with every field OpenID Connect Discovery 1.0 requires', async () => {
    const res = await fetch(`${tenant.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.issuer).toBe(`${instance.base}/api/oidc/${tenant.projectId}`);
    for (const field of [
      'issuer',
      'authorization_endpoint',
      'token_endpoint',
      'jwks_uri',
      'response_types_supported',
      'subject_types_supported',
      'id_token_signing_alg_values_supported',
      'userinfo_endpoint',
    ]) {
      expect(doc[field]).toBeDefined();
    }
    expect(doc.authorization_endpoint).toBe(`${tenant.issuer}/authorize`);
    expect(doc.response_types_supported).toEqual(['code']);
    expect(doc.subject_types_supported).toEqual(['public']);
    expect(doc.id_token_signing_alg_values_supported).toEqual(['RS256']);
    expect(doc.code_challenge_methods_supported).toEqual(['S256']);
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', 'profile', 'offline_access']));
    expect(doc.revocation_endpoint).toBe(`${tenant.issuer}/revoke`);
    expect(doc.end_session_endpoint).toBe(`${tenant.issuer}/end-session`);
  });

  it("publishes both environments' public keys, and no private member", async () => {
    const jwks = (await (await fetch(`${tenant.issuer}/jwks`)).json()) as { keys: Array<Record<string, unknown>> };
    const kids = jwks.keys.map((k) => k.kid);
    for (const environment of ['production', 'sandbox']) {
      const res = await api(instance.base).admin('GET', `/projects/${tenant.projectId}/environments/${environment}/public-key`);
      expect(kids).toContain(res.body.data.kid);
    }
    for (const key of jwks.keys) expect(Object.keys(key).filter((m) => ['d', 'p', 'q', 'dp', 'dq', 'qi'].includes(m))).toEqual([]);
  });

  it('signs a confidential client in with PKCE and nonce; ID token, userinfo, refresh and revocation work', async () => {
    const oc = await openid();
    const client = await registerClient(instance, tenant);
    const userId = await createUser(instance, tenant.live, 'ada@example.test', { name: 'Ada Lovelace', plan: 'x' });
    const config = await relyingParty(tenant.issuer, client);
    const { tokens, callback } = await signIn(instance, config, tenant.live, userId, {
      params: { scope: 'openid email profile offline_access', prompt: 'consent' },
    });
    expect(callback.searchParams.get('iss')).toBe(tenant.issuer);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: tenant.issuer, aud: client.clientId, sub: userId, email: 'ada@example.test', email_verified: false, name: 'Ada Lovelace' });
    const production = await api(instance.base).admin('GET', `/projects/${tenant.projectId}/environments/production/public-key`);
    expect(kidOf(tokens.id_token!)).toBe(production.body.data.kid);
    expect(tokens.scope?.split(' ').sort()).toEqual(['email', 'offline_access', 'openid', 'profile']);

    const userinfo = await oc.fetchUserInfo(config, tokens.access_token, userId);
    expect(userinfo).toEqual({ sub: userId, email: 'ada@example.test', email_verified: false, name: 'Ada Lovelace' });

    const refreshed = await oc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.claims()?.sub).toBe(userId);
    await expect(oc.fetchUserInfo(config, refreshed.access_token, userId)).resolves.toMatchObject({ sub: userId });

    await oc.tokenRevocation(config, refreshed.access_token);
    expect(await oauthError(oc.fetchUserInfo(config, refreshed.access_token, userId))).toBe('invalid_token');
    await oc.tokenRevocation(config, refreshed.refresh_token!);
    await expect(oc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  }, 30_000);

  it('issues no refresh token without offline_access', async () => {
    const client = await registerClient(instance, tenant);
    const userId = await createUser(instance, tenant.live, 'noref@example.test');
    const { tokens } = await signIn(instance, await relyingParty(tenant.issuer, client), tenant.live, userId);
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.claims()).not.toHaveProperty('name');
  }, 30_000);

  it('signs a sandbox public client in with the sandbox key and sandbox user', async () => {
    const oc = await openid();
    const client = await registerClient(instance, tenant, { environment: 'sandbox', public: true, redirectUris: [CALLBACK] });
    expect(client.clientSecret).toBeUndefined();
    const userId = await createUser(instance, tenant.sandbox, 'sbx@example.test');
    const config = await relyingParty(tenant.issuer, client);
    const { tokens } = await signIn(instance, config, tenant.sandbox, userId);
    const sandbox = await api(instance.base).admin('GET', `/projects/${tenant.projectId}/environments/sandbox/public-key`);
    expect(kidOf(tokens.id_token!)).toBe(sandbox.body.data.kid);
    expect(await oc.fetchUserInfo(config, tokens.access_token, userId)).toMatchObject({ sub: userId, email: 'sbx@example.test' });
  }, 30_000);
});
