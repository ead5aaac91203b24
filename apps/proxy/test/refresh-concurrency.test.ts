import { createSvcClient } from '@svc/sdk';
import { RefreshFlights } from '../src/core/refresh-flights';
import { SESSION_ADAPTERS, CookieJar, PASSWORD, postJson, startProxy, startRealApi, type RealApi, type RunningProxy, type TestProject, json } from './helpers';

// Parallel tabs share one refresh cookie. The API's replay detection is strict (grace 0), so
// without the proxy's single flight the second refresh would revoke every session of the user.
describe.each(SESSION_ADAPTERS)('refresh single flight (%s)', (adapter) => {
  let api: RealApi;
  let project: TestProject;
  let proxy: RunningProxy;

  beforeAll(async () => {
    api = await startRealApi();
    project = await api.createProject();
    proxy = await startProxy({ adapter, apiKey: project.live, baseUrl: api.url });
  });
  afterAll(async () => {
    await proxy.close();
    await api.close();
  });

  it('10 parallel GET session with an expired access cookie: all 200, one refresh, no session revoked', async () => {
    const svc = createSvcClient({ apiKey: project.live, baseUrl: api.url });
    const tab = new CookieJar().store(await postJson(proxy, '/api/session/signup', { email: 'tabs@example.com', password: PASSWORD }));
    // A second session of the same user (another device): a replay would revoke it too.
    const otherDevice = await svc.login({ email: 'tabs@example.com', password: PASSWORD });
    if (otherDevice.twoFactorRequired) throw new Error('unexpected challenge');

    api.clock.advance(16 * 60); // past the 15-minute access lifetime: the access cookie is now refused
    proxy.upstream.splice(0);
    const answers = await Promise.all(Array.from({ length: 10 }, () => fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: tab.header() } })));
    expect(answers.map((res) => res.status)).toEqual(Array(10).fill(200));
    for (const res of answers) expect((await json(res)).data.user.email).toBe('tabs@example.com');
    expect(proxy.upstream.filter((call) => call === 'POST /api/auth/refresh')).toHaveLength(1);

    // Every tab got the same new cookies, and they keep working.
    const jars = answers.map((res) => new CookieJar().store(res));
    const successors = new Set(jars.map((jar) => jar.values.get('svc_rt')));
    expect(successors.size).toBe(1);
    expect(jars[0].values.get('svc_rt')).not.toBe(tab.values.get('svc_rt'));
    expect((await postJson(proxy, '/api/session/refresh', {}, { Cookie: jars[0].header() })).status).toBe(200);
    // No replay was seen: the other device's session is alive.
    await expect(svc.refresh({ refreshToken: otherDevice.refreshToken })).resolves.toEqual(expect.objectContaining({ expiresIn: 900 }));
  });

  it('a late tab with the old cookie inside the memo window gets the same successor', async () => {
    const tab = new CookieJar().store(await postJson(proxy, '/api/session/login', { email: 'tabs@example.com', password: PASSWORD }));
    const first = new CookieJar().store(await postJson(proxy, '/api/session/refresh', {}, { Cookie: tab.header() }));
    const late = new CookieJar().store(await postJson(proxy, '/api/session/refresh', {}, { Cookie: tab.header() }));
    expect(late.values.get('svc_rt')).toBe(first.values.get('svc_rt'));
    expect((await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: first.header() } })).status).toBe(200);
  });
});

describe('RefreshFlights', () => {
  it('shares one call per token, forgets failures at once and successes after the memo', async () => {
    jest.useFakeTimers();
    try {
      const flights = new RefreshFlights(10_000);
      let calls = 0;
      const ok = () => Promise.resolve({ accessToken: `a${++calls}`, refreshToken: `r${calls}`, expiresIn: 900 });
      const [a, b] = await Promise.all([flights.run('t1', ok), flights.run('t1', ok)]);
      expect(a).toBe(b);
      expect(calls).toBe(1);
      await flights.run('t2', ok);
      expect(calls).toBe(2);
      jest.advanceTimersByTime(10_001);
      expect(flights.size).toBe(0);
      await expect(flights.run('t3', () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
      await Promise.resolve();
      expect(flights.size).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
