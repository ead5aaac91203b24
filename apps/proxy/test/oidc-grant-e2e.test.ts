import { startInstance, type OidcInstance } from '../../api/test/oidc/harness';
import { authorize, CALLBACK, createTenant, createUser, openid, registerClient, relyingParty, type Started, type Tenant } from '../../api/test/oidc/steps';
import { CookieJar, json, PASSWORD, postJson, setCookiesOf, startProxy, type RunningProxy } from './helpers';

// The hosted OIDC provider's consent step (`POST /api/auth/oidc/grant`) through the session proxy, every
// part real: the API with oidc-provider and RS256 keys on a loopback port, openid-client as the
// relying party, the proxy in a host Express app. The user signs in to the customer's app through
// the proxy; the app's login page (reached with the request token) asks the proxy to grant, and
// the proxy takes the user from the cookies. The browser follows every redirect by hand.
let instance: OidcInstance;
let tenant: Tenant;
let config: Awaited<ReturnType<typeof relyingParty>>;
let proxy: RunningProxy;

beforeAll(async () => {
  instance = await startInstance();
  tenant = await createTenant(instance);
  config = await relyingParty(tenant.issuer, await registerClient(instance, tenant));
  proxy = await startProxy({ apiKey: tenant.live, baseUrl: instance.listening });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await instance?.close();
});

/** Signs up through the proxy: the browser's cookie jar and the user id the session reports. */
async function signUpThroughProxy(email: string, meta?: Record<string, unknown>): Promise<{ jar: CookieJar; userId: string }> {
  const res = await postJson(proxy, '/api/session/signup', { email, password: PASSWORD, meta });
  expect(res.status).toBe(201);
  const jar = new CookieJar().store(res);
  const current = await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: jar.header() } });
  expect(current.status).toBe(200);
  return { jar, userId: (await json(current)).data.user.id };
}

/** The app's login page asks the proxy to decide on the pending authorization request. */
function grantThroughProxy(started: Started, body: Record<string, unknown>, jar?: CookieJar): Promise<Response> {
  return postJson(proxy, '/api/session/oidc/grant', { requestToken: started.requestToken, ...body }, jar ? { Cookie: jar.header() } : {});
}

/** The browser opens the grant's redirect URL; the provider sends it to the relying party. */
async function resume(started: Started, res: Response): Promise<URL> {
  expect(res.status).toBe(200);
  const { data } = await json(res);
  expect(Object.keys(data)).toEqual(['redirectUrl']);
  const hop = await started.browser.get(data.redirectUrl);
  const callback = new URL(hop.location ?? 'about:blank');
  expect(`${callback.origin}${callback.pathname}`).toBe(CALLBACK);
  expect(callback.searchParams.get('state')).toBe(started.state);
  return callback;
}

async function tokensFor(started: Started, callback: URL) {
  const oc = await openid();
  return oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedNonce: started.nonce, expectedState: started.state, idTokenExpected: true });
}

describe('OIDC grant through the session proxy, end to end', () => {
  it('approves as the signed-in user: the relying party gets an ID token for that user, never for a userId in the body', async () => {
    const oc = await openid();
    const victim = await createUser(instance, tenant.live, 'victim@example.test');
    const { jar, userId } = await signUpThroughProxy('ada@example.test', { name: 'Ada Lovelace' });
    const started = await authorize(instance, config, { scope: 'openid email profile' });
    expect(started.loginPage?.searchParams.get('scope')).toBe('openid email profile');

    const granted = await grantThroughProxy(started, { approved: true, scopes: ['openid', 'email', 'profile'], userId: victim }, jar);
    const callback = await resume(started, granted);
    expect(callback.searchParams.get('iss')).toBe(tenant.issuer);
    const tokens = await tokensFor(started, callback);
    expect(tokens.claims()).toMatchObject({ iss: tenant.issuer, sub: userId, email: 'ada@example.test', name: 'Ada Lovelace' });
    expect(userId).not.toBe(victim);
    expect(await oc.fetchUserInfo(config, tokens.access_token, userId)).toMatchObject({ sub: userId, email: 'ada@example.test' });
  }, 30_000);

  it('granted scopes narrow what the relying party receives', async () => {
    const { jar, userId } = await signUpThroughProxy('grace@example.test', { name: 'Grace Hopper' });
    const started = await authorize(instance, config, { scope: 'openid email profile' });
    const tokens = await tokensFor(started, await resume(started, await grantThroughProxy(started, { approved: true, scopes: ['openid', 'email'] }, jar)));
    expect(tokens.scope?.split(' ').sort()).toEqual(['email', 'openid']);
    expect(tokens.claims()).toMatchObject({ sub: userId, email: 'grace@example.test' });
    expect(tokens.claims()).not.toHaveProperty('name');
  }, 30_000);

  it('with only the refresh cookie left, the proxy refreshes first, sets new cookies and grants', async () => {
    const { jar, userId } = await signUpThroughProxy('linus@example.test');
    jar.values.delete('svc_at');
    const started = await authorize(instance, config);
    const granted = await grantThroughProxy(started, { approved: true }, jar);
    expect(Object.keys(setCookiesOf(granted)).sort()).toEqual(['svc_at', 'svc_rt']);
    const tokens = await tokensFor(started, await resume(started, granted));
    expect(tokens.claims()).toMatchObject({ sub: userId, email: 'linus@example.test' });
  }, 30_000);

  it('an approval without a session is 401 and leaves the request pending; a denial needs no session', async () => {
    const started = await authorize(instance, config);
    const anonymous = await grantThroughProxy(started, { approved: true, userId: 'someone' });
    expect([anonymous.status, (await json(anonymous)).error]).toEqual([401, 'invalid_token']);
    const denied = await resume(started, await grantThroughProxy(started, { approved: false }));
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.has('code')).toBe(false);
  }, 30_000);

  it("a request token is single-use: the second grant is the API's 401 invalid_token", async () => {
    const { jar } = await signUpThroughProxy('once@example.test');
    const started = await authorize(instance, config);
    const first = await grantThroughProxy(started, { approved: true }, jar);
    expect(first.status).toBe(200);
    await first.body?.cancel();
    const again = await grantThroughProxy(started, { approved: true }, jar);
    expect(again.status).toBe(401);
    expect(await json(again)).toEqual({ error: 'invalid_token', message: expect.any(String) });
  }, 30_000);
});
