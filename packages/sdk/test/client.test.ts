import { createSvcClient, isTwoFactorChallenge, SvcError, type SvcClient } from '../src';
import { startRealApi, type RealApi, type TestProject } from './real-api';

// Every method whose endpoint the API serves today, against the real API over HTTP.
describe('createSvcClient against the real API', () => {
  let api: RealApi;
  let project: TestProject;
  let svc: SvcClient;
  const sent: Request[] = [];
  // Records each request, then lets the real fetch send it.
  const recordingFetch: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    sent.push(request.clone());
    return fetch(request);
  };

  beforeAll(async () => {
    api = await startRealApi();
    project = await api.createProject();
    svc = createSvcClient({ apiKey: project.live, baseUrl: `${api.url}/`, fetch: recordingFetch });
  });
  afterAll(() => api.close());
  beforeEach(() => sent.splice(0));

  it('signs up, reads /me, refreshes, logs out', async () => {
    const signup = await svc.signup({ email: 'ada@example.com', password: 'correct horse battery', meta: { plan: 'team' } }, { clientIp: '203.0.113.7' });
    expect(signup.user).toEqual(expect.objectContaining({ email: 'ada@example.com', role: expect.any(String), meta: { plan: 'team' } }));
    expect(signup.expiresIn).toBeGreaterThan(0);
    expect(sent[0].headers.get('x-svc-client-ip')).toBe('203.0.113.7');
    expect(sent[0].headers.get('x-api-key')).toBe(project.live);

    const me = await svc.me({ accessToken: signup.accessToken, clientIp: '203.0.113.7' });
    expect(me.user).toEqual(expect.objectContaining({ id: signup.user.id, emailVerified: false }));
    expect(sent[1].headers.get('authorization')).toBe(`Bearer ${signup.accessToken}`);

    const rotated = await svc.refresh({ refreshToken: signup.refreshToken });
    expect(rotated.refreshToken).not.toBe(signup.refreshToken);
    expect(await svc.logout({ refreshToken: rotated.refreshToken })).toEqual({ success: true });
    await expect(svc.refresh({ refreshToken: rotated.refreshToken })).rejects.toMatchObject({ code: 'invalid_refresh_token', status: 401 });
  });

  it('logs in and tells the bundle from a second-factor challenge', async () => {
    await svc.signup({ email: 'grace@example.com', password: 'correct horse battery' });
    const result = await svc.login({ email: 'grace@example.com', password: 'correct horse battery' });
    expect(isTwoFactorChallenge(result)).toBe(false);
    if (result.twoFactorRequired) throw new Error('unexpected challenge');
    expect(result.user.email).toBe('grace@example.com');
    expect(typeof result.accessToken).toBe('string');
  });

  it('answers branding', async () => {
    expect(await svc.branding()).toEqual({ poweredByService: true });
  });

  it('turns error envelopes into SvcError with the contract code and status', async () => {
    const error = await svc.login({ email: 'ada@example.com', password: 'wrong password' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: 'invalid_credentials', status: 401, message: expect.any(String) });
    await expect(svc.signup({ email: 'ada@example.com', password: 'correct horse battery' })).rejects.toMatchObject({ code: 'user_already_exists', status: 409 });
    await expect(svc.signup({ email: 'not-an-email', password: 'x' })).rejects.toMatchObject({ code: 'validation_error', status: 400 });
    await expect(svc.me({ accessToken: 'not.a.jwt' })).rejects.toMatchObject({ code: 'invalid_token', status: 401 });
    const stranger = createSvcClient({ apiKey: 'svc_live_unknown', baseUrl: api.url });
    await expect(stranger.branding()).rejects.toMatchObject({ code: 'invalid_api_key', status: 401 });
  });

  it('reports an unreachable API as network_error (status 0)', async () => {
    const down = createSvcClient({ apiKey: project.live, baseUrl: 'http://127.0.0.1:9', retry: { retries: 0 } });
    await expect(down.login({ email: 'a@example.com', password: 'whatever1' })).rejects.toMatchObject({ code: 'network_error', status: 0 });
  });
});
