import request from 'supertest';
import { OtpauthTotp } from '@svc/adapters-mfa';
import { describeWithOathtool, oathtoolTotp } from '@svc/adapters-mfa/testing';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { buildTestApp, createProject, signUp } from './helpers';

// The whole TOTP flow over HTTP with the otpauth adapter; every code comes from Debian's
// oathtool, an independent implementation, at the FixedClock's time.

const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';

async function setup() {
  // The per-challenge HTTP limit would answer 429 before the core's own budget shows; lift it here.
  const rateLimits = structuredClone(DEFAULT_RATE_LIMITS);
  rateLimits.twoFactorVerify.limit = 1000;
  rateLimits.totpCode.limit = 1000;
  rateLimits.login.limit = 1000;
  const { app, clock } = buildTestApp({ deps: { totp: new OtpauthTotp() }, config: { rateLimits } });
  const project = await createProject(app, { name: 'Acme' });
  const { accessToken } = await signUp(app, project.live, EMAIL, PASSWORD);
  const post = (path: string, body: object, bearer?: string) => {
    const req = request(app).post(path).set('X-API-Key', project.live);
    return (bearer ? req.set('Authorization', `Bearer ${bearer}`) : req).send(body);
  };
  const started = await post('/api/auth/2fa/totp/start', {}, accessToken).expect(200);
  const secret: string = started.body.data.secret;
  /** The code of the step `offset` steps from the clock's, computed by oathtool. */
  const code = (offset = 0) => oathtoolTotp(secret, new Date(clock.now().getTime() + offset * 30_000));
  /** A 6-digit code that matches none of the steps -2..+2. */
  const wrong = () => {
    const near = new Set([-2, -1, 0, 1, 2].map(code));
    let n = Number(code()) + 1;
    while (near.has(String(n % 1e6).padStart(6, '0'))) n += 1;
    return String(n % 1e6).padStart(6, '0');
  };
  const login = () => post('/api/auth/login', { email: EMAIL, password: PASSWORD });
  const challenge = async () => (await login().expect(200)).body.data.twoFactorToken as string;
  const verify = (twoFactorToken: string, c: string) => post('/api/auth/2fa/totp/verify', { twoFactorToken, code: c });
  return { app, clock, project, accessToken, started, secret, code, wrong, post, login, challenge, verify };
}

async function enabled() {
  const ctx = await setup();
  const confirmed = await ctx.post('/api/auth/2fa/totp/confirm', { code: ctx.code() }, ctx.accessToken).expect(200);
  ctx.clock.advance(120); // four steps on: the confirming code's step lies behind
  return { ...ctx, recoveryCodes: confirmed.body.data.recoveryCodes as string[] };
}

describeWithOathtool('TOTP over HTTP (codes from oathtool)', () => {
  it('start -> confirm -> login challenge -> verify signs in', async () => {
    const { started, accessToken, post, code, clock, login, verify, project, app } = await setup();
    expect(started.body.data.otpauthUrl).toMatch(/^otpauth:\/\/totp\/Acme:ada%40example\.com\?/);
    expect(started.body.data.otpauthUrl).toContain(`secret=${started.body.data.secret}`);
    expect((await login().expect(200)).body.data.accessToken).toEqual(expect.any(String)); // pending: no challenge yet
    const confirmed = await post('/api/auth/2fa/totp/confirm', { code: code() }, accessToken).expect(200);
    expect(confirmed.body.data.recoveryCodes).toHaveLength(10);
    clock.advance(30);
    const challenged = await login().expect(200);
    expect(challenged.body).toEqual({ data: { twoFactorRequired: true, twoFactorToken: expect.any(String), methods: ['totp'] } });
    const signedIn = await verify(challenged.body.data.twoFactorToken, code()).expect(200);
    expect(Object.keys(signedIn.body.data).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'user']);
    expect(signedIn.body.data.user).toMatchObject({ email: EMAIL, lastLoginAt: clock.now().toISOString() });
    const me = await request(app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${signedIn.body.data.accessToken}`);
    expect(me.status).toBe(200);
  });

  it('accepts a code once: a replay inside its own step is refused', async () => {
    const { code, challenge, verify, clock } = await enabled();
    const current = code();
    await verify(await challenge(), current).expect(200);
    clock.advance(5);
    const replay = await verify(await challenge(), current).expect(401);
    expect(replay.body).toEqual({ error: 'invalid_totp_code', message: expect.any(String) });
  });

  it('accepts one step of drift either way and refuses two', async () => {
    const { code, challenge, verify } = await enabled();
    const token = await challenge();
    expect((await verify(token, code(-2)).expect(401)).body.error).toBe('invalid_totp_code');
    expect((await verify(token, code(2)).expect(401)).body.error).toBe('invalid_totp_code');
    await verify(token, code(-1)).expect(200);
    await verify(await challenge(), code(1)).expect(200);
  });

  it('five wrong codes kill the challenge', async () => {
    const { code, wrong, challenge, verify } = await enabled();
    const token = await challenge();
    for (let i = 0; i < 5; i += 1) expect((await verify(token, wrong()).expect(401)).body.error).toBe('invalid_totp_code');
    expect((await verify(token, code()).expect(401)).body.error).toBe('invalid_two_factor_token');
    await verify(await challenge(), code()).expect(200);
  });

  it('a recovery code works once', async () => {
    const { recoveryCodes, challenge, verify } = await enabled();
    expect(recoveryCodes.every((c) => /^[a-z2-7]{5}-[a-z2-7]{5}$/.test(c))).toBe(true);
    await verify(await challenge(), recoveryCodes[0]).expect(200);
    expect((await verify(await challenge(), recoveryCodes[0]).expect(401)).body.error).toBe('invalid_totp_code');
    await verify(await challenge(), recoveryCodes[1]).expect(200);
  });

  it('a challenge is single-use and lives five minutes', async () => {
    const { code, challenge, verify, clock } = await enabled();
    const token = await challenge();
    await verify(token, code()).expect(200);
    clock.advance(30);
    expect((await verify(token, code()).expect(401)).body.error).toBe('invalid_two_factor_token');
    const late = await challenge();
    clock.advance(301);
    expect((await verify(late, code()).expect(401)).body.error).toBe('invalid_two_factor_token');
    expect((await verify('made-up', code()).expect(401)).body.error).toBe('invalid_two_factor_token');
  });

  it('disable needs a current TOTP code', async () => {
    const { post, accessToken, code, wrong, recoveryCodes, login } = await enabled();
    expect((await post('/api/auth/2fa/totp/disable', {}, accessToken).expect(400)).body.error).toBe('validation_error');
    expect((await post('/api/auth/2fa/totp/disable', { code: wrong() }, accessToken).expect(401)).body.error).toBe('invalid_totp_code');
    expect((await post('/api/auth/2fa/totp/disable', { code: recoveryCodes[0] }, accessToken).expect(401)).body.error).toBe('invalid_totp_code');
    expect((await post('/api/auth/2fa/totp/disable', { code: code() }).expect(401)).body.error).toBe('invalid_token');
    expect((await post('/api/auth/2fa/totp/disable', { code: code() }, accessToken).expect(200)).body).toEqual({ data: { success: true } });
    expect((await login().expect(200)).body.data.accessToken).toEqual(expect.any(String));
  });

  it('refuses to start again while enabled; setup is per environment', async () => {
    const { post, accessToken, project, app } = await enabled();
    expect((await post('/api/auth/2fa/totp/start', {}, accessToken).expect(400)).body.error).toBe('validation_error');
    const sandbox = await signUp(app, project.sandbox, EMAIL, PASSWORD);
    const res = await request(app).post('/api/auth/login').set('X-API-Key', project.sandbox).send({ email: EMAIL, password: PASSWORD });
    expect(res.body.data.accessToken).toEqual(expect.any(String));
    expect(sandbox.accessToken).toEqual(expect.any(String));
  });
});
