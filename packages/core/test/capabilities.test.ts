import { createAuthService } from '../src/create-auth-service';
import { AuthError } from '../src/errors';
import { totpStepAt } from '../src/domain/two-factor';
import { createInMemoryDeps } from '../src/testing/in-memory-deps';
import { fromBase32, hotp } from '../src/testing/reference-totp';
import { PASSWORD, serviceWithProject } from './helpers';

// A host that wants password sign-in alone gives the core parts and nothing else
// (docs/architecture.md, "Capabilities").

function coreParts() {
  const { settings, clock, random, projects, apiKeys, users, sessions, signingKeys, keyFactory, tokens, passwords } = createInMemoryDeps();
  return { settings, clock, random, projects, apiKeys, users, sessions, signingKeys, keyFactory, tokens, passwords };
}

describe('a password-only service, built from the core parts alone', () => {
  it('signs up, logs in, refreshes and reads /me', async () => {
    const service = createAuthService(coreParts());
    const created = await service.admin.createProject({ name: 'Passwords only' });
    const key = await service.resolveApiKey(created.apiKeys.production);
    const signedUp = await service.signUp(key, { email: 'Ada@Example.test', password: PASSWORD });
    expect(signedUp.user).toMatchObject({ email: 'ada@example.test', emailVerified: false, role: 'user' });
    const loggedIn = await service.logIn(key, { email: 'ada@example.test', password: PASSWORD }, { client: { address: '198.51.100.7' }, unknownClient: async () => {} });
    if (loggedIn.twoFactorRequired) throw new Error('no second factor without the TOTP capability');
    const refreshed = await service.refresh(key, loggedIn.refreshToken);
    expect(refreshed.refreshToken).not.toBe(loggedIn.refreshToken);
    expect(await service.getMe(key, refreshed.accessToken)).toMatchObject({ id: signedUp.user.id, email: 'ada@example.test' });
    await service.logOut(key, refreshed.refreshToken);
    await expect(service.getMe(key, refreshed.accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(await service.admin.purgeExpired()).toMatchObject({ oneTimeTokens: 0, outboxMails: 0, knownDevices: 0 });
  });

  it('has no use case of a capability it was not given, at compile time and at run time', () => {
    const service = createAuthService(coreParts());
    for (const absent of ['totp', 'passkeys', 'magicLink', 'passwordReset', 'oauth']) expect(absent in service).toBe(false);
    for (const absent of ['sandboxOutbox', 'deadMails', 'configureOAuthProvider']) expect(absent in service.admin).toBe(false);
    // @ts-expect-error the TOTP capability was not given
    expect(service.totp).toBeUndefined();
    // @ts-expect-error the mail capability was not given
    expect(service.admin.sandboxOutbox).toBeUndefined();
  });

  it('without a known-device store every client counts as unknown, so the account limit always applies', async () => {
    const service = createAuthService(coreParts());
    const key = await service.resolveApiKey((await service.admin.createProject({ name: 'P' })).apiKeys.production);
    await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
    const client = { address: '198.51.100.7', deviceId: 'device-1' };
    let unknown = 0;
    const unknownClient = async () => void (unknown += 1);
    await service.logIn(key, { email: 'ada@example.test', password: PASSWORD }, { client, unknownClient });
    await service.logIn(key, { email: 'ada@example.test', password: PASSWORD }, { client, unknownClient });
    expect(unknown).toBe(2);
  });

  it('refuses to turn on the common-password check without a list, and fails closed on a project that has it on', async () => {
    const parts = coreParts();
    const service = createAuthService(parts);
    await expect(service.admin.createProject({ name: 'P', rejectCommonPasswords: true })).rejects.toMatchObject({
      code: 'validation_error',
      message: 'rejectCommonPasswords cannot be turned on: this service has no common-password list.',
    });
    const created = await service.admin.createProject({ name: 'P' });
    await expect(service.admin.updateProject(created.project.id, { rejectCommonPasswords: true })).rejects.toMatchObject({ code: 'validation_error' });
    // Turned on by a host that has the list, over the same storage.
    await createAuthService(createInMemoryDeps(parts)).admin.updateProject(created.project.id, { rejectCommonPasswords: true });
    const key = await createAuthService(parts, { apiKeyCacheSeconds: 0 }).resolveApiKey(created.apiKeys.production);
    const refused = await service.signUp(key, { email: 'ada@example.test', password: PASSWORD }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthError);
    expect(refused).toMatchObject({ code: 'internal_error' });
    expect(await parts.users.findByEmail(key.scope, 'ada@example.test')).toBeNull();
  });

  it('refuses a capability given in part, naming what is missing', () => {
    const { twoFactor } = createInMemoryDeps();
    expect(() => createAuthService({ ...coreParts(), twoFactor })).toThrow('the totp capability needs twoFactor, totp, secretBox, oneTimeTokens; missing: totp, secretBox, oneTimeTokens.');
    const { outbox } = createInMemoryDeps();
    expect(() => createAuthService({ ...coreParts(), outbox })).toThrow(/the mail capability .* missing: secretBox, oneTimeTokens\./);
  });

  it('the parts shared by capabilities (one-time tokens, secret box) turn none of them on by themselves', () => {
    const { oneTimeTokens, secretBox } = createInMemoryDeps();
    const service = createAuthService({ ...coreParts(), oneTimeTokens, secretBox });
    for (const absent of ['totp', 'passkeys', 'magicLink', 'oauth']) expect(absent in service).toBe(false);
  });
});

describe('the full service', () => {
  it('asks for the second factor of a user who enrolled: TOTP is on with its parts', async () => {
    const { service, production: key, deps } = await serviceWithProject();
    const user = await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
    const { secret } = await service.totp.start(key, user.accessToken);
    await service.totp.confirm(key, user.accessToken, hotp(fromBase32(secret), totpStepAt(deps.clock.now())));
    expect(await service.logIn(key, { email: 'ada@example.test', password: PASSWORD })).toMatchObject({ twoFactorRequired: true });
  });
});
