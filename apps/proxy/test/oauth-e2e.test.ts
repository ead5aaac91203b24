import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpOAuthProviderClient } from '../../../packages/adapters-oauth/src';
import { followRedirect } from '../../../packages/adapters-oauth/src/testing';
import { DEFAULT_PLAN_USER_LIMITS } from '../../../packages/core/src';
import { admin, buildTestApp, createProject, type TestProject } from '../../api/test/helpers';
import { ADA_GITHUB, ADA_OIDC, APP_URL, configureProviders, startProviders, type Providers } from '../../api/test/oauth-helpers';
import { REFRESH_COOKIE_MAX_AGE_SECONDS } from '../src';
import { CookieJar, json, postJson, setCookiesOf, startProxy, type RunningProxy } from './helpers';

// Social sign-in (initiate, callback, exchange) through the session proxy with every part real: the
// API app on a loopback port whose public URL is that port (so the providers redirect the
// browser to its real callback), the real protocol client against the loopback GitHub-shaped and
// OpenID providers, and the proxy in a host Express app. The browser is fetch, one hop at a time.

interface OAuthApi {
  url: string;
  app: ReturnType<typeof buildTestApp>['app'];
  project: TestProject;
  close(): Promise<void>;
}

/** The API listening first, so its issuer (the callback's origin) can be the real address. */
async function startOAuthApi(providers: Providers): Promise<OAuthApi> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { app } = buildTestApp({
    deps: { oauthClient: new HttpOAuthProviderClient({ timeoutMs: 5000 }), settings: { issuer: url, planUserLimits: DEFAULT_PLAN_USER_LIMITS } },
  });
  server.on('request', app);
  const project = await createProject(app, { name: 'Acme', redirectUrls: [APP_URL] });
  await configureProviders(app, project.id, providers, 'production');
  return {
    url,
    app,
    project,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let providers: Providers;
let api: OAuthApi;
let proxy: RunningProxy;

beforeAll(async () => {
  providers = await startProviders();
  api = await startOAuthApi(providers);
  proxy = await startProxy({ apiKey: api.project.live, baseUrl: api.url });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await api?.close();
  await providers?.stop();
});
beforeEach(() => {
  providers.github.account = structuredClone(ADA_GITHUB);
  providers.openid.account = { ...ADA_OIDC };
});

/**
 * The browser's round trip: the page asks the proxy for the authorization URL, goes to the
 * provider, which sends it to the API's callback, which sends it to the app with the code.
 */
async function signInAtProvider(provider: string, state: string): Promise<URL> {
  const initiated = await postJson(proxy, `/api/session/oauth/${provider}`, { redirectUrl: APP_URL, state });
  expect(initiated.status).toBe(200);
  const { data } = await json(initiated);
  expect(Object.keys(data)).toEqual(['authorizationUrl']);
  const callback = await followRedirect(data.authorizationUrl);
  expect(`${callback.origin}${callback.pathname}`).toBe(`${api.url}/api/auth/oauth/${provider}/callback`);
  const landing = await followRedirect(callback.href);
  expect(`${landing.origin}${landing.pathname}`).toBe(APP_URL);
  return landing;
}

/** The app page hands the code to the proxy. */
function exchangeCode(code: string | null): Promise<Response> {
  return postJson(proxy, '/api/session/oauth/exchange', { code });
}

function session(jar: CookieJar): Promise<Response> {
  return fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: jar.header() } });
}

describe('social sign-in through the session proxy, end to end', () => {
  it.each([
    ['github', 'ada@example.com'],
    ['oidc', 'grace@example.org'],
  ])('%s: initiate, provider, callback, exchange; the cookies carry the session', async (provider, email) => {
    providers.github.account = { ...ADA_GITHUB, emails: [{ ...ADA_GITHUB.emails[0], email }] };
    providers.openid.account = { ...ADA_OIDC, email };
    const landing = await signInAtProvider(provider, `csrf-${provider}`);
    expect(Object.fromEntries(landing.searchParams)).toEqual({ code: expect.any(String), provider, state: `csrf-${provider}` });

    const res = await exchangeCode(landing.searchParams.get('code'));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      data: {
        user: { id: expect.any(String), email, role: 'user', meta: {}, createdAt: expect.any(String) },
        expiresIn: 900,
        provider,
      },
    });
    const cookies = setCookiesOf(res);
    expect(Object.keys(cookies).sort()).toEqual(['svc_at', 'svc_did', 'svc_rt']);
    expect(cookies.svc_at.attributes).toEqual({ 'max-age': '900', path: '/', httponly: true, samesite: 'Lax' });
    expect(cookies.svc_rt.attributes).toEqual({ 'max-age': String(REFRESH_COOKIE_MAX_AGE_SECONDS), path: '/', httponly: true, samesite: 'Lax' });
    // Tokens travel only in the cookies.
    expect(text).not.toContain(cookies.svc_at.value);
    expect(text).not.toContain(cookies.svc_rt.value);

    const current = await session(new CookieJar().store(res));
    expect(current.status).toBe(200);
    expect((await json(current)).data).toEqual({
      user: expect.objectContaining({ id: JSON.parse(text).data.user.id, email, emailVerified: true, lastLoginAt: expect.any(String) }),
      poweredByService: true,
    });
  });

  it('an exchange code works once: the second exchange is 401 invalid_token and sets no cookie', async () => {
    const code = (await signInAtProvider('github', 'once')).searchParams.get('code');
    const first = await exchangeCode(code);
    expect(first.status).toBe(200);
    await first.body?.cancel();
    const second = await exchangeCode(code);
    expect(second.status).toBe(401);
    expect(await json(second)).toEqual({ error: 'invalid_token', message: expect.any(String) });
    expect(second.headers.getSetCookie()).toEqual([]);
  });

  it('a user banned between the callback and the exchange gets 403 user_banned and no cookie', async () => {
    const email = 'mallory@example.com';
    providers.github.account = { ...ADA_GITHUB, id: 666, login: 'mallory', emails: [{ ...ADA_GITHUB.emails[0], email }] };
    const signedIn = await exchangeCode((await signInAtProvider('github', 'first')).searchParams.get('code'));
    const jar = new CookieJar().store(signedIn);
    const { user } = (await json(signedIn)).data;
    expect(user.email).toBe(email);

    const code = (await signInAtProvider('github', 'second')).searchParams.get('code');
    await admin(api.app).post(`/admin/projects/${api.project.id}/environments/production/users/${user.id}/ban`).expect(200);
    const refused = await exchangeCode(code);
    expect(refused.status).toBe(403);
    expect(await json(refused)).toEqual({ error: 'user_banned', message: expect.any(String) });
    expect(refused.headers.getSetCookie()).toEqual([]);
    // The session from before the ban is refused too, and its cookies cleared.
    const current = await session(jar);
    expect([current.status, (await json(current)).error]).toEqual([403, 'user_banned']);
    expect(setCookiesOf(current).svc_at.attributes['max-age']).toBe('0');
  });
});
