import { Client } from 'pg';
import { openStorage, type TypeormStorage } from '@svc/adapters-typeorm';
import { createTestSchema, describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { startInstance, type OidcInstance } from './harness';
import { authorize, CALLBACK, createTenant, createUser, grant, oauthError, openid, registerClient, relyingParty, type Tenant } from './steps';

// The provider on PostgreSQL with two API instances sharing one database and one issuer: a flow
// started on one finishes on the other, and one code raced to both is exchanged exactly once.
describeWithPostgres('hosted OIDC provider on PostgreSQL, two instances', (url) => {
  let storage: TypeormStorage;
  let drop: () => Promise<void>;
  let first: OidcInstance;
  let second: OidcInstance;
  let tenant: Tenant;
  let toSecond: typeof fetch;
  let schemaName: string;

  beforeAll(async () => {
    const schema = await createTestSchema(url);
    drop = schema.drop;
    schemaName = schema.schema;
    storage = await openStorage({ databaseUrl: url, schema: schema.schema, poolSize: 8 });
    first = await startInstance({ storage });
    second = await startInstance({ storage, baseUrl: first.base });
    // The relying party talks to the second instance for everything it fetches itself.
    const secondOrigin = second.listening;
    toSecond = (input, init) => fetch(String(input instanceof Request ? input.url : input).replace(first.base, secondOrigin), init);
    tenant = await createTenant(first);
  }, 60_000);

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await storage?.close();
    await drop?.();
  });

  async function codeFor(config: Awaited<ReturnType<typeof relyingParty>>, key: string, userId: string, params: Record<string, string> = {}) {
    const started = await authorize(first, config, params);
    const approved = await grant(first, key, { requestToken: started.requestToken, approved: true, userId });
    expect(approved.status).toBe(200);
    const resumed = await started.browser.get(approved.body.data.redirectUrl);
    expect(resumed.location?.startsWith(CALLBACK)).toBe(true);
    return { started, callback: new URL(resumed.location!) };
  }

  it('starts a flow on one instance and finishes it on the other (PKCE, nonce, userinfo, refresh)', async () => {
    const oc = await openid();
    const client = await registerClient(first, tenant);
    const userId = await createUser(first, tenant.live, 'pg@example.test', { name: 'Grace' });
    const config = await relyingParty(tenant.issuer, client, toSecond);
    const { started, callback } = await codeFor(config, tenant.live, userId, { scope: 'openid email profile offline_access', prompt: 'consent' });
    const tokens = await oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedNonce: started.nonce, expectedState: started.state, idTokenExpected: true });
    expect(tokens.claims()).toMatchObject({ iss: tenant.issuer, sub: userId, email: 'pg@example.test', name: 'Grace' });
    expect(await oc.fetchUserInfo(config, tokens.access_token, userId)).toMatchObject({ sub: userId, name: 'Grace' });
    const refreshed = await oc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.claims()?.sub).toBe(userId);
    // A reused code, on the first instance this time: refused, and the family is revoked.
    const onFirst = await relyingParty(tenant.issuer, client);
    expect(await oauthError(oc.authorizationCodeGrant(onFirst, callback, { pkceCodeVerifier: started.verifier, expectedState: started.state }))).toBe('invalid_grant');
    expect(await oauthError(oc.fetchUserInfo(config, refreshed.access_token, userId))).toBe('invalid_token');
  }, 60_000);

  it('an approval whose record cannot be written: 503, the request token stays open; approved and recorded once writable', async () => {
    const client = await registerClient(first, tenant);
    const userId = await createUser(first, tenant.live, 'audit@example.test');
    const config = await relyingParty(tenant.issuer, client);
    const started = await authorize(first, config);
    // The audit table refuses inserts (a trigger that raises), from outside, as an operator's change would.
    const operator = new Client({ connectionString: url });
    await operator.connect();
    const table = `"${schemaName}".audit_log`;
    try {
      await operator.query(`CREATE OR REPLACE FUNCTION "${schemaName}".audit_refused() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit log refused'; END $$`);
      await operator.query(`CREATE TRIGGER audit_refused BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION "${schemaName}".audit_refused()`);
      const refused = await grant(first, tenant.live, { requestToken: started.requestToken, approved: true, userId });
      expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 503, error: 'service_unavailable' });
    } finally {
      await operator.query(`DROP TRIGGER IF EXISTS audit_refused ON ${table}`);
      await operator.end();
    }
    // The token was not spent on a grant nobody recorded: the same approval goes through now.
    const approved = await grant(first, tenant.live, { requestToken: started.requestToken, approved: true, userId });
    expect(approved.status).toBe(200);
    const resumed = await started.browser.get(approved.body.data.redirectUrl);
    expect(resumed.location?.startsWith(CALLBACK)).toBe(true);
    const entries = await storage.auditLog.list({ projectId: tenant.projectId, environment: 'production' }, { type: 'oidc.grant', limit: 10 });
    expect(entries.filter((entry) => entry.userId === userId)).toHaveLength(1);
  }, 60_000);

  it('exchanges one code raced to both instances exactly once', async () => {
    const client = await registerClient(first, tenant);
    const userId = await createUser(first, tenant.live, 'race@example.test');
    const config = await relyingParty(tenant.issuer, client);
    const { started, callback } = await codeFor(config, tenant.live, userId);
    const secondOrigin = second.listening;
    const exchange = (origin: string) =>
      fetch(`${origin}/api/oidc/${tenant.projectId}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: CALLBACK, code_verifier: started.verifier }),
      });
    const answers = await Promise.all([exchange(first.base), exchange(secondOrigin)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const loser = answers.find((a) => a.status === 400)!;
    expect((await loser.json()) as object).toMatchObject({ error: 'invalid_grant' });
    // The loser was a replay: the winner's tokens are revoked with the grant.
    const winner = (await answers.find((a) => a.status === 200)!.json()) as { access_token: string };
    const oc = await openid();
    expect(await oauthError(oc.fetchUserInfo(config, winner.access_token, userId))).toBe('invalid_token');
  }, 60_000);
});
