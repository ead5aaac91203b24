import { createSvcClient, isTwoFactorChallenge, type SvcClient } from '../src';
import { startRealApi, type RealApi, type TestProject } from './real-api';
import { totpCode } from './totp-code';

const PASSWORD = 'correct horse battery';

// Magic link, password reset, TOTP and passkeys against the real API (sandbox key, so the
// admin API's sandbox outbox hands over the mailed links).
describe('mail, second-factor and passkey methods against the real API', () => {
  let api: RealApi;
  let project: TestProject;
  let svc: SvcClient;
  const sent: Request[] = [];

  beforeAll(async () => {
    api = await startRealApi();
    project = await api.createProject({
      name: 'Mail and MFA',
      magicLinkUrl: 'http://localhost:3001/magic',
      passwordResetUrl: 'http://localhost:3001/reset',
      allowedOrigins: ['http://localhost:3001'],
    });
    svc = createSvcClient({
      apiKey: project.sandbox,
      baseUrl: api.url,
      fetch: (input, init) => {
        sent.push(new Request(input, init));
        return fetch(input, init);
      },
    });
  });
  afterAll(() => api.close());

  it('magicLink sends a link that verifyMagicLink redeems without the API key', async () => {
    expect(await svc.magicLink({ email: 'link@example.com' })).toEqual({ success: true });
    const link = await api.lastSandboxLink(project.id, 'link@example.com');
    sent.splice(0);
    const result = await svc.verifyMagicLink({ token: link.searchParams.get('token')!, project: link.searchParams.get('project')! });
    if (isTwoFactorChallenge(result)) throw new Error('unexpected challenge');
    expect(result.user.email).toBe('link@example.com');
    expect(sent[0].headers.get('x-api-key')).toBeNull();
    await expect(svc.verifyMagicLink({ token: link.searchParams.get('token')!, project: project.id })).rejects.toMatchObject({ code: 'invalid_magic_link', status: 401 });
  });

  it('passwordReset and passwordUpdate change the password', async () => {
    await svc.signup({ email: 'reset@example.com', password: PASSWORD });
    expect(await svc.passwordReset({ email: 'reset@example.com' })).toEqual({ success: true });
    const token = (await api.lastSandboxLink(project.id, 'reset@example.com')).searchParams.get('token')!;
    expect(await svc.passwordUpdate({ token, newPassword: 'a brand new passphrase' })).toEqual({ success: true });
    await expect(svc.login({ email: 'reset@example.com', password: PASSWORD })).rejects.toMatchObject({ code: 'invalid_credentials' });
    expect(isTwoFactorChallenge(await svc.login({ email: 'reset@example.com', password: 'a brand new passphrase' }))).toBe(false);
    await expect(svc.passwordUpdate({ token, newPassword: 'another passphrase' })).rejects.toMatchObject({ code: 'invalid_reset_token', status: 401 });
  });

  it('totpStart, totpConfirm, login challenge, totpVerify, totpDisable', async () => {
    const { accessToken } = await svc.signup({ email: 'totp@example.com', password: PASSWORD });
    const { secret, otpauthUrl } = await svc.totpStart({ accessToken });
    expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    const { recoveryCodes } = await svc.totpConfirm({ code: totpCode(secret, api.clock.now()) }, { accessToken });
    expect(recoveryCodes).toHaveLength(10);

    const challenge = await svc.login({ email: 'totp@example.com', password: PASSWORD });
    if (!isTwoFactorChallenge(challenge)) throw new Error('expected the second-factor challenge');
    expect(challenge).toEqual({ twoFactorRequired: true, twoFactorToken: expect.any(String), methods: ['totp'] });
    expect(challenge).not.toHaveProperty('accessToken');
    api.clock.advance(30); // a code is good once: the next one comes with the next 30-second step
    const signedIn = await svc.totpVerify({ twoFactorToken: challenge.twoFactorToken, code: totpCode(secret, api.clock.now()) });
    expect(signedIn.user.email).toBe('totp@example.com');
    await expect(svc.totpVerify({ twoFactorToken: challenge.twoFactorToken, code: '000000' })).rejects.toMatchObject({ status: 401 });

    api.clock.advance(30);
    expect(await svc.totpDisable({ code: totpCode(secret, api.clock.now()) }, { accessToken: signedIn.accessToken })).toEqual({ success: true });
    expect(isTwoFactorChallenge(await svc.login({ email: 'totp@example.com', password: PASSWORD }))).toBe(false);
  });

  it('passkey methods reach their endpoints (full ceremonies run in the browser tests)', async () => {
    const { accessToken } = await svc.signup({ email: 'keys@example.com', password: PASSWORD });
    expect(await svc.passkeyList({ accessToken })).toEqual({ passkeys: [] });
    expect(await svc.passkeyRegisterOptions({ accessToken })).toEqual(expect.objectContaining({ challenge: expect.any(String) }));
    const login = await svc.passkeyLoginOptions({ email: 'keys@example.com' });
    expect(login).toEqual({ challengeId: expect.any(String), options: expect.objectContaining({ challenge: expect.any(String) }) });
    await expect(svc.passkeyLoginVerify({ challengeId: login.challengeId, email: 'keys@example.com', response: { id: 'x' } })).rejects.toMatchObject({ code: 'invalid_passkey', status: 401 });
    await expect(svc.passkeyRevoke('00000000-0000-4000-8000-000000000000', { accessToken })).rejects.toMatchObject({ code: 'not_found', status: 404 });
  });
});
