import { createSessionClient, SessionError, type SessionClient } from '../src';
import { CookieJar, PASSWORD, startProxy, startRealApi, type RealApi, type RunningProxy } from '../../../apps/proxy/test/helpers';

// The client in Node against the real proxy and API. A page's fetch keeps cookies and sends
// Origin by itself; here a small fetch wrapper does both. Passkeys need a browser: apps/demo tests.
describe('createSessionClient', () => {
  let api: RealApi;
  let proxy: RunningProxy;
  let client: SessionClient;
  const jar = new CookieJar();

  beforeAll(async () => {
    api = await startRealApi();
    const project = await api.createProject();
    proxy = await startProxy({ apiKey: project.live, baseUrl: api.url });
    client = createSessionClient({
      routePrefix: `${proxy.url}/api/session/`,
      fetch: (async (input: string, init?: RequestInit) => {
        const headers = { ...(init?.headers as Record<string, string>), Cookie: jar.header(), Origin: proxy.url };
        const response = await fetch(input, { ...init, headers });
        jar.store(response);
        return response;
      }) as typeof fetch,
    });
  });
  afterAll(async () => {
    await proxy.close();
    await api.close();
  });

  it('answers null when signed out, the session once signed up, and null again after logout', async () => {
    expect(await client.session()).toBeNull();
    const signedIn = await client.signup({ email: 'client@example.com', password: PASSWORD });
    expect(signedIn).toEqual({ user: expect.objectContaining({ email: 'client@example.com' }), expiresIn: 900 });
    expect(await client.session()).toEqual({ user: expect.objectContaining({ email: 'client@example.com' }), poweredByService: true });
    expect(await client.refresh()).toEqual({ expiresIn: 900 });
    await client.logout();
    expect(await client.session()).toBeNull();
  });

  it('signs in with a password', async () => {
    const result = await client.login({ email: 'client@example.com', password: PASSWORD });
    expect(result.twoFactorRequired).toBeFalsy();
    expect((await client.session())?.user.email).toBe('client@example.com');
  });

  it('rejects with typed SessionErrors', async () => {
    const wrong = await client.login({ email: 'client@example.com', password: 'wrong password' }).catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(SessionError);
    expect(wrong).toMatchObject({ code: 'invalid_credentials', status: 401 });
    await expect(client.signup({ email: 'client@example.com', password: PASSWORD })).rejects.toMatchObject({ code: 'user_already_exists', status: 409 });
    const offline = createSessionClient({ routePrefix: 'http://127.0.0.1:9/api/session' });
    await expect(offline.session()).rejects.toMatchObject({ code: 'network_error', status: 0 });
  });

  it("lists this browser's sessions, changes the password with the current one, and deletes the account", async () => {
    await client.signup({ email: 'account@example.com', password: PASSWORD });
    const sessions = await client.sessions();
    expect(sessions).toEqual([expect.objectContaining({ current: true, userAgent: expect.any(String) })]);
    expect(await client.revokeOtherSessions()).toEqual({ revoked: 0 });
    await expect(client.changePassword({ currentPassword: 'wrong', newPassword: 'a brand new one' })).rejects.toMatchObject({ code: 'invalid_credentials', status: 401 });
    expect(await client.changePassword({ currentPassword: PASSWORD, newPassword: 'a brand new one' })).toEqual({ success: true });
    api.clock.advance(6 * 60);
    await client.refresh();
    await expect(client.deleteAccount()).rejects.toMatchObject({ code: 'reauthentication_required', status: 403 });
    expect(await client.deleteAccount({ currentPassword: 'a brand new one' })).toEqual({ success: true });
    expect(await client.session()).toBeNull();
    await expect(client.login({ email: 'account@example.com', password: 'a brand new one' })).rejects.toMatchObject({ code: 'invalid_credentials' });
  });
});
