import type { PasswordHasher } from '../src/ports/password-hasher';
import { createAuthService } from '../src/create-auth-service';
import { createInMemoryDeps } from '../src/testing/in-memory-deps';
import { FakePasswordHasher } from '../src/testing/fake-password-hasher';
import { AuthError } from '../src/errors';
import { PASSWORD } from './helpers';

/** Records which kind of compare each login paid for. */
class RecordingHasher implements PasswordHasher {
  readonly compares: Array<'real' | 'dummy'> = [];
  private readonly inner = new FakePasswordHasher();
  hash(password: string) {
    return this.inner.hash(password);
  }
  verify(password: string, hash: string) {
    this.compares.push('real');
    return this.inner.verify(password, hash);
  }
  verifyDummy(password: string) {
    this.compares.push('dummy');
    return this.inner.verifyDummy(password);
  }
}

async function setup() {
  const passwords = new RecordingHasher();
  const deps = createInMemoryDeps({ passwords });
  const service = createAuthService(deps);
  const created = await service.admin.createProject({ name: 'Login' });
  const key = await service.resolveApiKey(created.apiKeys.production);
  const { user } = await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
  return { deps, service, key, user, passwords };
}

describe('logIn', () => {
  it('signs in with any letter case of the e-mail and records lastLoginAt', async () => {
    const { service, key, deps } = await setup();
    deps.clock.advance(30);
    const result = await service.logIn(key, { email: 'ADA@example.test ', password: PASSWORD });
    if (result.twoFactorRequired) throw new Error('no second factor expected');
    expect(result.user.lastLoginAt).toEqual(deps.clock.now());
    expect((await service.getMe(key, result.accessToken)).lastLoginAt).toEqual(deps.clock.now());
  });

  it('answers unknown e-mail and wrong password alike, paying one compare each', async () => {
    const { service, key, passwords } = await setup();
    const unknown = await service.logIn(key, { email: 'nobody@example.test', password: PASSWORD }).catch((e) => e);
    const wrong = await service.logIn(key, { email: 'ada@example.test', password: 'wrong password' }).catch((e) => e);
    expect([unknown.code, wrong.code]).toEqual(['invalid_credentials', 'invalid_credentials']);
    expect(unknown.message).toBe(wrong.message);
    expect(passwords.compares).toEqual(['dummy', 'real']);
  });

  it('tells a banned user so only after the password matched', async () => {
    const { service, key, user } = await setup();
    await service.admin.banUser(key.scope, user.id);
    await expect(service.logIn(key, { email: 'ada@example.test', password: 'nope nope' })).rejects.toMatchObject({
      code: 'invalid_credentials',
    });
    await expect(service.logIn(key, { email: 'ada@example.test', password: PASSWORD })).rejects.toMatchObject({
      code: 'user_banned',
    });
    await service.admin.unbanUser(key.scope, user.id);
    await expect(service.logIn(key, { email: 'ada@example.test', password: PASSWORD })).resolves.toBeDefined();
  });

  it('signs the access token while the session is being stored, and the token names that session', async () => {
    const { service, key, deps } = await setup();
    const events: string[] = [];
    const sign = deps.tokens.sign.bind(deps.tokens);
    jest.spyOn(deps.tokens, 'sign').mockImplementation((scope, claims) => {
      events.push('sign started');
      return sign(scope, claims);
    });
    const create = deps.sessions.create.bind(deps.sessions);
    jest.spyOn(deps.sessions, 'create').mockImplementation(async (scope, session) => {
      events.push('store started');
      await create(scope, session);
      events.push('stored');
    });
    const result = await service.logIn(key, { email: 'ada@example.test', password: PASSWORD });
    if (result.twoFactorRequired) throw new Error('no second factor expected');
    expect(events).toEqual(['store started', 'sign started', 'stored']);
    const claims = await deps.tokens.decode(key.scope, result.accessToken);
    expect(claims?.sid).toEqual(expect.any(String));
    expect(await deps.sessions.findSession(key.scope, claims?.sid as string)).not.toBeNull();
  });

  it('makes the client known beside the sign-in, and fails the sign-in when that fails', async () => {
    const { service, key, deps } = await setup();
    const client = { address: '198.51.100.7', deviceId: 'device-1' };
    const events: string[] = [];
    const remember = deps.knownDevices.remember.bind(deps.knownDevices);
    const remembered = jest.spyOn(deps.knownDevices, 'remember').mockImplementation(async (...args) => {
      events.push('remember started');
      await remember(...args);
    });
    const create = deps.sessions.create.bind(deps.sessions);
    jest.spyOn(deps.sessions, 'create').mockImplementation(async (scope, session) => {
      await create(scope, session);
      events.push('session stored');
    });
    await service.logIn(key, { email: 'ada@example.test', password: PASSWORD }, { client });
    expect(events).toEqual(['remember started', 'session stored']);
    let unknown = false;
    await service.logIn(key, { email: 'ada@example.test', password: PASSWORD }, { client, unknownClient: async () => void (unknown = true) });
    expect(unknown).toBe(false);
    remembered.mockRejectedValueOnce(new AuthError('service_unavailable'));
    await expect(service.logIn(key, { email: 'ada@example.test', password: PASSWORD }, { client })).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('reads whether the user has a second factor while the password is compared, and only for a known address', async () => {
    const { service, key, deps, passwords } = await setup();
    const events: string[] = [];
    const verify = passwords.verify.bind(passwords);
    let release: () => void = () => undefined;
    jest.spyOn(passwords, 'verify').mockImplementation(async (password, hash) => {
      events.push('compare started');
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      events.push('compare done');
      return verify(password, hash);
    });
    const findTotp = deps.twoFactor.findTotp.bind(deps.twoFactor);
    const read = jest.spyOn(deps.twoFactor, 'findTotp').mockImplementation(async (scope, userId) => {
      events.push('second factor read');
      return findTotp(scope, userId);
    });
    const login = service.logIn(key, { email: 'ada@example.test', password: PASSWORD });
    while (!events.includes('compare started')) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const result = await login;
    expect(result.twoFactorRequired).toBe(false);
    expect(events).toEqual(['second factor read', 'compare started', 'compare done']);
    expect(read).toHaveBeenCalledTimes(1);
    await expect(service.logIn(key, { email: 'nobody@example.test', password: PASSWORD })).rejects.toMatchObject({ code: 'invalid_credentials' });
    expect(read).toHaveBeenCalledTimes(1);
  });

  it("fails the sign-in when the second factor's read fails, and tells a wrong password as such", async () => {
    const { service, key, deps } = await setup();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      jest.spyOn(deps.twoFactor, 'findTotp').mockRejectedValue(new AuthError('service_unavailable'));
      // A read that failed is never taken for "no second factor".
      await expect(service.logIn(key, { email: 'ada@example.test', password: PASSWORD })).rejects.toMatchObject({ code: 'service_unavailable' });
      await expect(service.logIn(key, { email: 'ada@example.test', password: 'wrong password' })).rejects.toMatchObject({ code: 'invalid_credentials' });
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('does not find sandbox users with a production key', async () => {
    const { service } = await setup();
    const created = await service.admin.createProject({ name: 'Other' });
    const sandbox = await service.resolveApiKey(created.apiKeys.sandbox);
    await service.signUp(sandbox, { email: 'sb@example.test', password: PASSWORD });
    const production = await service.resolveApiKey(created.apiKeys.production);
    await expect(service.logIn(production, { email: 'sb@example.test', password: PASSWORD })).rejects.toMatchObject({
      code: 'invalid_credentials',
    });
  });
});
