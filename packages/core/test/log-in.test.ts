import type { PasswordHasher } from '../src/ports/password-hasher';
import { createAuthService } from '../src/create-auth-service';
import { createInMemoryDeps } from '../src/testing/in-memory-deps';
import { FakePasswordHasher } from '../src/testing/fake-password-hasher';
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
