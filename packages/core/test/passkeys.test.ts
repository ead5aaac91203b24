import { totpStepAt } from '../src/domain/two-factor';
import { FakeAuthenticator } from '../src/testing/fake-webauthn';
import { fromBase32, hotp } from '../src/testing/reference-totp';
import { PASSWORD, serviceWithProject } from './helpers';

// Use-case rules over the fake verifier; genuine ceremonies (Chromium's virtual authenticator
// and @simplewebauthn/server) run in apps/api/test/passkeys-browser.test.ts.

const ORIGIN = 'https://app.example.test';

async function registered() {
  const ctx = await serviceWithProject({ name: 'Acme', allowedOrigins: [ORIGIN] });
  const { service, production: key } = ctx;
  const { accessToken, user } = await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
  const authenticator = new FakeAuthenticator({ origin: ORIGIN, rpId: 'app.example.test' });
  const options = await service.passkeys.registrationOptions(key, accessToken);
  const passkey = await service.passkeys.register(key, accessToken, { response: authenticator.create(options.challenge as string), name: ' Laptop ' });
  const signIn = async (make = (challenge: string) => authenticator.get(challenge), email = 'ada@example.test') => {
    const { challengeId, options: login } = await service.passkeys.loginOptions(key, { email });
    return service.passkeys.logIn(key, { challengeId, email, response: make(login.challenge as string) });
  };
  return { ...ctx, key, accessToken, user, authenticator, passkey, signIn };
}

describe('passkeys', () => {
  it('registers a passkey and signs in with it, skipping TOTP', async () => {
    const { service, key, accessToken, passkey, signIn, deps, user } = await registered();
    expect(passkey).toMatchObject({ name: 'Laptop', userId: user.id, counter: 0, lastUsedAt: null });
    const { secret } = await service.totp.start(key, accessToken);
    await service.totp.confirm(key, accessToken, hotp(fromBase32(secret), totpStepAt(deps.clock.now())));
    expect((await service.logIn(key, { email: 'ada@example.test', password: PASSWORD })).twoFactorRequired).toBe(true);
    deps.clock.advance(60);
    const result = await signIn();
    expect(result.user.lastLoginAt).toEqual(deps.clock.now());
    expect((await service.passkeys.list(key, accessToken))[0]).toMatchObject({ id: passkey.id, lastUsedAt: deps.clock.now(), counter: 1 });
  });

  it('refuses a passkey sign-in of an unconfirmed address once the project requires confirmed ones', async () => {
    const { service, deps, created, authenticator } = await registered();
    await service.admin.updateProject(created.project.id, { emailVerification: 'required', emailVerificationUrl: 'https://app.example.test/verify' });
    deps.clock.advance(11); // past the API-key cache
    const key = await service.resolveApiKey(created.apiKeys.production);
    const { challengeId, options } = await service.passkeys.loginOptions(key, { email: 'ada@example.test' });
    const response = authenticator.get(options.challenge as string);
    await expect(service.passkeys.logIn(key, { challengeId, email: 'ada@example.test', response })).rejects.toMatchObject({ code: 'email_not_verified' });
  });

  it('gives unknown e-mails options of the same shape and signs nobody in with them', async () => {
    const { service, key, authenticator } = await registered();
    const known = await service.passkeys.loginOptions(key, { email: 'ada@example.test' });
    const unknown = await service.passkeys.loginOptions(key, { email: 'nobody@example.test' });
    expect(Object.keys(unknown.options).sort()).toEqual(Object.keys(known.options).sort());
    const response = authenticator.get(unknown.options.challenge as string);
    await expect(service.passkeys.logIn(key, { challengeId: unknown.challengeId, email: 'nobody@example.test', response })).rejects.toMatchObject({ code: 'invalid_passkey' });
  });

  it('uses a challenge once and only for the e-mail it was issued for', async () => {
    const { service, key, authenticator } = await registered();
    const { challengeId, options } = await service.passkeys.loginOptions(key, { email: 'ada@example.test' });
    const response = authenticator.get(options.challenge as string);
    await expect(service.passkeys.logIn(key, { challengeId, email: 'bob@example.test', response })).rejects.toMatchObject({ code: 'invalid_passkey' });
    await expect(service.passkeys.logIn(key, { challengeId, email: 'ada@example.test', response })).rejects.toMatchObject({ code: 'invalid_passkey' });
  });

  it('refuses another challenge, a foreign origin, a regressed counter and a removed passkey', async () => {
    const { service, key, accessToken, authenticator, passkey, signIn } = await registered();
    await expect(signIn(() => authenticator.get('another-challenge'))).rejects.toMatchObject({ code: 'invalid_passkey' });
    await expect(signIn((c) => authenticator.get(c, { origin: 'https://evil.example' }))).rejects.toMatchObject({ code: 'invalid_passkey' });
    await signIn();
    await expect(signIn((c) => authenticator.get(c, { counter: 1 }))).rejects.toMatchObject({ code: 'invalid_passkey' });
    await service.passkeys.remove(key, accessToken, passkey.id);
    await expect(signIn()).rejects.toMatchObject({ code: 'invalid_passkey' });
    await expect(service.passkeys.remove(key, accessToken, passkey.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('binds a registration challenge to the user it was issued to', async () => {
    const { service, key, accessToken } = await registered();
    const bob = await service.signUp(key, { email: 'bob@example.test', password: PASSWORD });
    const options = await service.passkeys.registrationOptions(key, accessToken);
    const response = new FakeAuthenticator({ origin: ORIGIN, rpId: 'app.example.test' }).create(options.challenge as string);
    await expect(service.passkeys.register(key, bob.accessToken, { response })).rejects.toMatchObject({ code: 'invalid_passkey' });
    await expect(service.passkeys.register(key, accessToken, { response })).rejects.toMatchObject({ code: 'invalid_passkey' });
  });

  it('needs a relying party: webauthn settings or allowed origins', async () => {
    const { service, production: key } = await serviceWithProject({ name: 'Bare' });
    await expect(service.passkeys.loginOptions(key, { email: 'a@example.test' })).rejects.toMatchObject({ code: 'validation_error' });
    await expect(service.admin.updateProject(key.project.id, { webauthn: { rpId: 'example.com', rpName: 'Ex', origins: ['https://evil.test'] } })).rejects.toMatchObject({ code: 'validation_error' });
  });
});
