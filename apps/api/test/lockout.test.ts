import { fromBase32, hotp } from '@svc/core/testing';
import { buildTestApp, createProject, signUp } from './helpers';

const OWNER = 'owner@example.com';
const PASSWORD = 'correct horse battery';
const DEVICE = 'b7Qf1mZ0cK9xR2vT8sL4wN6yE3uH5jGa';

/** A login attempt as the caller's server sends it: the end user's address and device named in headers. */
function loginAs(http: ReturnType<typeof buildTestApp>['http'], key: string, client: { ip: string; device?: string }, password: string) {
  const req = http.post('/api/auth/login').set('X-API-Key', key).set('X-Svc-Client-Ip', client.ip);
  if (client.device !== undefined) req.set('X-Svc-Device-Id', client.device);
  return req.send({ email: OWNER, password });
}

/** 50 wrong passwords for the owner from 5 addresses (10 each, the per address + e-mail limit). */
async function attackFromFiveAddresses(http: ReturnType<typeof buildTestApp>['http'], key: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let a = 1; a <= 5; a += 1) {
    for (let i = 0; i < 10; i += 1) statuses.push((await loginAs(http, key, { ip: `203.0.113.${a}` }, `wrong guess ${i}`)).status);
  }
  return statuses;
}

describe('failures from elsewhere do not lock the owner out of a known address or device', () => {
  it('after 50 wrong passwords from 5 addresses, the known address and the known device still sign in; strangers wait', async () => {
    const { app, http, clock } = buildTestApp();
    const project = await createProject(app);
    await signUp(app, project.live, OWNER, PASSWORD);
    // The owner signed in from home, with the browser's device id, a day ago.
    await loginAs(http, project.live, { ip: '198.51.100.7', device: DEVICE }, PASSWORD).expect(200);
    clock.advance(24 * 3600);

    expect(new Set(await attackFromFiveAddresses(http, project.live))).toEqual(new Set([401]));

    // The account's budget for unknown clients is spent: a new address without a known device waits.
    const stranger = await loginAs(http, project.live, { ip: '192.0.2.44' }, PASSWORD).expect(429);
    expect(stranger.body.error).toBe('rate_limited');
    expect(stranger.headers['retry-after']).toBeDefined();
    expect(stranger.headers['ratelimit-policy']).toBe('50;w=3600');
    // A device id nobody signed in with does not help, nor does one over 128 characters.
    await loginAs(http, project.live, { ip: '192.0.2.45', device: 'never-seen-device-0001' }, PASSWORD).expect(429);
    await loginAs(http, project.live, { ip: '192.0.2.46', device: `${DEVICE}${'x'.repeat(100)}` }, PASSWORD).expect(429);

    // The owner: from the known address (no device id), and from a new address with the known device.
    await loginAs(http, project.live, { ip: '198.51.100.7' }, PASSWORD).expect(200);
    await loginAs(http, project.live, { ip: '192.0.2.99', device: DEVICE }, PASSWORD).expect(200);
  });

  it('the contract limit (10 per 15 min per address + e-mail) still applies to a known address', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    await signUp(app, project.live, OWNER, PASSWORD);
    const home = { ip: '198.51.100.7', device: DEVICE };
    await loginAs(http, project.live, home, PASSWORD).expect(200);
    for (let i = 0; i < 9; i += 1) await loginAs(http, project.live, home, 'wrong').expect(401);
    const refused = await loginAs(http, project.live, home, PASSWORD).expect(429);
    expect(refused.headers['ratelimit-policy']).toBe('10;w=900');
  });

  it('an IPv6 address is known by its /64', async () => {
    const { app, http, clock } = buildTestApp();
    const project = await createProject(app);
    await signUp(app, project.live, OWNER, PASSWORD);
    await loginAs(http, project.live, { ip: '2001:db8:1:2::1' }, PASSWORD).expect(200);
    clock.advance(24 * 3600);
    await attackFromFiveAddresses(http, project.live);
    await loginAs(http, project.live, { ip: '2001:db8:1:2:ffff::9' }, PASSWORD).expect(200);
    await loginAs(http, project.live, { ip: '2001:db8:1:3::1' }, PASSWORD).expect(429);
  });

  it('a TOTP user becomes known once the second factor is done, not after the password alone', async () => {
    const { app, http, deps } = buildTestApp();
    const project = await createProject(app);
    const { accessToken } = await signUp(app, project.live, OWNER, PASSWORD);
    const key = { 'X-API-Key': project.live, Authorization: `Bearer ${accessToken}` };
    const { secret } = (await http.post('/api/auth/2fa/totp/start').set(key).expect(200)).body.data;
    const code = () => hotp(fromBase32(secret), Math.floor(deps.clock.now().getTime() / 30_000));
    await http.post('/api/auth/2fa/totp/confirm').set(key).send({ code: code() }).expect(200);
    deps.clock.advance(30);

    // The password alone, from one address: no device becomes known.
    const passwordOnly = await loginAs(http, project.live, { ip: '198.51.100.20', device: 'half-way-device-000' }, PASSWORD).expect(200);
    expect(passwordOnly.body.data.twoFactorRequired).toBe(true);
    // The whole sign-in, from another.
    const challenge = (await loginAs(http, project.live, { ip: '198.51.100.7', device: DEVICE }, PASSWORD).expect(200)).body.data;
    await http
      .post('/api/auth/2fa/totp/verify')
      .set('X-API-Key', project.live)
      .set('X-Svc-Client-Ip', '198.51.100.7')
      .set('X-Svc-Device-Id', DEVICE)
      .send({ twoFactorToken: challenge.twoFactorToken, code: code() })
      .expect(200);
    deps.clock.advance(24 * 3600);

    await attackFromFiveAddresses(http, project.live);
    await loginAs(http, project.live, { ip: '198.51.100.20', device: 'half-way-device-000' }, PASSWORD).expect(429);
    const known = await loginAs(http, project.live, { ip: '192.0.2.1', device: DEVICE }, PASSWORD).expect(200);
    expect(known.body.data.twoFactorRequired).toBe(true);
  });
});
