import { createSvcClient, isTwoFactorChallenge, type SvcClient } from '../src';
import { startRealApi, type RealApi, type TestProject } from './real-api';

const PASSWORD = 'correct horse battery';

// The account methods against the real API (sandbox key): recent sign-in, devices, password
// change, account deletion, magic-link codes and e-mail verification.
describe('account methods against the real API', () => {
  let api: RealApi;
  let project: TestProject;
  let svc: SvcClient;
  const sent: Request[] = [];

  beforeAll(async () => {
    api = await startRealApi();
    project = await api.createProject({
      name: 'Accounts',
      magicLinkUrl: 'http://localhost:3001/magic',
      allowedOrigins: ['http://localhost:3001'],
      emailVerification: 'optional',
      emailVerificationUrl: 'http://localhost:3001/verify',
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

  it('passes the proof a sensitive change needs once the sign-in is not recent', async () => {
    const { accessToken } = await svc.signup({ email: 'proof@example.com', password: PASSWORD });
    api.clock.advance(6 * 60);
    await expect(svc.passkeyRegisterOptions({ accessToken })).rejects.toMatchObject({ code: 'reauthentication_required', status: 403 });
    await expect(svc.totpStart({ accessToken }, { currentPassword: 'wrong' })).rejects.toMatchObject({ code: 'invalid_credentials', status: 401 });
    expect(await svc.passkeyRegisterOptions({ accessToken }, { currentPassword: PASSWORD })).toEqual(expect.objectContaining({ challenge: expect.any(String) }));
    expect((await svc.totpStart({ accessToken })).secret).toEqual(expect.any(String));
    sent.splice(0);
    await expect(svc.passkeyRevoke('00000000-0000-4000-8000-000000000000', { accessToken }, { currentPassword: PASSWORD })).rejects.toMatchObject({ code: 'not_found' });
    expect(sent[0].method).toBe('DELETE');
    expect(await sent[0].json()).toEqual({ currentPassword: PASSWORD });
  });

  it('lists sessions with the user agent and address it passed, and signs them out', async () => {
    const call = { clientIp: '203.0.113.5', userAgent: 'Firefox/140.0' };
    const first = await svc.signup({ email: 'devices@example.com', password: PASSWORD }, call);
    const second = await svc.login({ email: 'devices@example.com', password: PASSWORD }, { clientIp: '198.51.100.1', userAgent: 'Phone/1' });
    const third = await svc.login({ email: 'devices@example.com', password: PASSWORD });
    if (isTwoFactorChallenge(second) || isTwoFactorChallenge(third)) throw new Error('unexpected challenge');
    const { sessions } = await svc.sessionList({ accessToken: first.accessToken });
    expect(sessions).toHaveLength(3);
    expect(sessions.find((s) => s.current)).toMatchObject({ address: '203.0.113.5', userAgent: 'Firefox/140.0' });
    const phone = sessions.find((s) => s.userAgent === 'Phone/1')!;
    expect(await svc.sessionRevoke(phone.id, { accessToken: first.accessToken })).toEqual({ success: true });
    await expect(svc.me({ accessToken: second.accessToken })).rejects.toMatchObject({ code: 'invalid_token' });
    expect(await svc.sessionRevokeOthers({ accessToken: first.accessToken })).toEqual({ revoked: 1 });
    await expect(svc.me({ accessToken: third.accessToken })).rejects.toMatchObject({ code: 'invalid_token' });
    expect(await svc.logoutAll({ accessToken: first.accessToken })).toEqual({ revoked: 1 });
    await expect(svc.me({ accessToken: first.accessToken })).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('changes the password and deletes the account', async () => {
    const { accessToken } = await svc.signup({ email: 'change@example.com', password: PASSWORD });
    await expect(svc.passwordChange({ currentPassword: 'nope', newPassword: 'a new passphrase' }, { accessToken })).rejects.toMatchObject({ code: 'invalid_credentials' });
    expect(await svc.passwordChange({ currentPassword: PASSWORD, newPassword: 'a new passphrase' }, { accessToken })).toEqual({ success: true });
    await expect(svc.login({ email: 'change@example.com', password: PASSWORD })).rejects.toMatchObject({ code: 'invalid_credentials' });
    expect(await svc.accountDelete({ accessToken })).toEqual({ success: true });
    await expect(svc.login({ email: 'change@example.com', password: 'a new passphrase' })).rejects.toMatchObject({ code: 'invalid_credentials' });
  });

  it('redeems a magic-link code and confirms an address with the mailed code', async () => {
    expect(await svc.magicLink({ email: 'code@example.com' })).toEqual({ success: true });
    const code = await api.lastSandboxCode(project.id, 'code@example.com');
    const result = await svc.magicLinkVerifyCode({ email: 'code@example.com', code });
    if (isTwoFactorChallenge(result)) throw new Error('unexpected challenge');
    expect(result.user.email).toBe('code@example.com');

    await svc.signup({ email: 'verify@example.com', password: PASSWORD });
    const verification = await api.lastSandboxCode(project.id, 'verify@example.com');
    await expect(svc.emailVerify({ email: 'verify@example.com', code: verification === '000000' ? '000001' : '000000' })).rejects.toMatchObject({ code: 'invalid_verification', status: 401 });
    expect(await svc.emailVerify({ email: 'verify@example.com', code: verification })).toEqual({ user: { id: expect.any(String), email: 'verify@example.com', emailVerified: true } });
    expect(await svc.emailVerifyResend({ email: 'verify@example.com' })).toEqual({ success: true });
  });

  it('changes the e-mail address with the code the new address was mailed', async () => {
    const { accessToken } = await svc.signup({ email: 'first@example.com', password: PASSWORD });
    expect(await svc.emailChange({ newEmail: 'second@example.com' }, { accessToken })).toEqual({ success: true });
    const code = await api.lastSandboxCode(project.id, 'second@example.com');
    const { user } = await svc.emailChangeConfirm({ code }, { accessToken });
    expect(user).toMatchObject({ email: 'second@example.com', emailVerified: true });
    expect((await svc.me({ accessToken })).user.email).toBe('second@example.com');
  });
});
