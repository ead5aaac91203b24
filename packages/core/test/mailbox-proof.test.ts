import { mailboxClaim } from '../src/domain/mailbox-proof';
import { totpStepAt } from '../src/domain/two-factor';
import { deliverOutbox } from '../src/use-cases/email/deliver-outbox';
import { FakeAuthenticator } from '../src/testing/fake-webauthn';
import { RecordingMailer } from '../src/testing/recording-mailer';
import { fromBase32, hotp } from '../src/testing/reference-totp';
import { PASSWORD, serviceWithProject } from './helpers';

// Pre-account takeover through e-mail: someone signs up with the victim's address and sets up
// the account (password, TOTP, a passkey, sessions) before the victim ever uses the service. The
// first proof that someone holds the mailbox (a magic link, a reset link, a provider's verified
// address) ends everything set up before it. The OAuth path is covered in oauth.test.ts.

const ORIGIN = 'https://app.example.test';
const SETTINGS = { magicLinkUrl: `${ORIGIN}/magic`, passwordResetUrl: `${ORIGIN}/reset`, allowedOrigins: [ORIGIN] };
const VICTIM = 'victim@example.test';

async function squatted() {
  const ctx = await serviceWithProject(SETTINGS);
  const { service, production: key, deps } = ctx;
  const squatter = await service.signUp(key, { email: VICTIM, password: PASSWORD });
  const { secret } = await service.totp.start(key, squatter.accessToken);
  await service.totp.confirm(key, squatter.accessToken, hotp(fromBase32(secret), totpStepAt(deps.clock.now())));
  const authenticator = new FakeAuthenticator({ origin: ORIGIN, rpId: 'app.example.test' });
  const options = await service.passkeys.registrationOptions(key, squatter.accessToken);
  await service.passkeys.register(key, squatter.accessToken, { response: authenticator.create(options.challenge as string) });
  // A second-factor challenge the squatter opened with the password and has not answered yet.
  const pending = await service.logIn(key, { email: VICTIM, password: PASSWORD });
  if (!pending.twoFactorRequired) throw new Error('expected the squatter to have TOTP on');
  deps.clock.advance(60);
  const mailer = new RecordingMailer();
  /** Delivers the outbox and answers the token of the latest link mailed to the victim. */
  const latestLinkToken = async () => {
    await deliverOutbox({ ...deps, mailer });
    const mail = mailer.sentTo(VICTIM).at(-1)!;
    return new URL(/https:\S+/.exec(mail.text)![0]).searchParams.get('token')!;
  };
  const passkeySignIn = async () => {
    const { challengeId, options: login } = await service.passkeys.loginOptions(key, { email: VICTIM });
    return service.passkeys.logIn(key, { challengeId, email: VICTIM, response: authenticator.get(login.challenge as string) });
  };
  return { ...ctx, key, squatter, secret, pending, latestLinkToken, passkeySignIn };
}

/** Nothing the squatter set up works any more. */
async function expectSquatterLockedOut(ctx: Awaited<ReturnType<typeof squatted>>) {
  const { service, key, deps, squatter, secret, pending, passkeySignIn } = ctx;
  await expect(service.logIn(key, { email: VICTIM, password: PASSWORD })).rejects.toMatchObject({ code: 'invalid_credentials' });
  await expect(service.refresh(key, squatter.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
  await expect(service.getMe(key, squatter.accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
  const code = hotp(fromBase32(secret), totpStepAt(deps.clock.now()));
  await expect(service.totp.verify(key, { twoFactorToken: pending.twoFactorRequired ? pending.twoFactorToken : '', code })).rejects.toMatchObject({
    code: 'invalid_two_factor_token',
  });
  await expect(passkeySignIn()).rejects.toMatchObject({ code: 'invalid_passkey' });
  expect(await deps.twoFactor.findTotp(key.scope, squatter.user.id)).toBeNull();
  expect(await deps.passkeys.listForUser(key.scope, squatter.user.id)).toEqual([]);
}

describe('mailboxClaim', () => {
  it('ends everything set up on an unverified account, but the password a reset sets; nothing on a verified one', () => {
    const everything = ['password', 'totp', 'passkeys', 'identities', 'sessions', 'pending_tokens'];
    for (const proof of ['magic_link', 'verified_provider_email'] as const) {
      expect(mailboxClaim({ emailVerified: false }, proof)).toEqual({ ends: everything });
      expect(mailboxClaim({ emailVerified: true }, proof)).toBeNull();
    }
    expect(mailboxClaim({ emailVerified: false }, 'password_reset')).toEqual({ ends: everything.filter((s) => s !== 'password') });
    expect(mailboxClaim({ emailVerified: true }, 'password_reset')).toBeNull();
  });
});

describe('the first proof of the mailbox takes an unverified account back', () => {
  it('magic link: the victim is signed in (no squatter TOTP), the password and everything else set up before are gone', async () => {
    const ctx = await squatted();
    const { service, key, deps, squatter, latestLinkToken } = ctx;
    await service.magicLink.request(key, { email: VICTIM });
    const result = await service.magicLink.verify(key.project, await latestLinkToken());
    if (result.twoFactorRequired) throw new Error("the squatter's TOTP must not stand between the victim and the account");
    expect(result.user).toMatchObject({ id: squatter.user.id, emailVerified: true, passwordHash: null });
    await expectSquatterLockedOut(ctx);
    // The session the link opened is the victim's, and it works.
    await expect(service.getMe(key, result.accessToken)).resolves.toMatchObject({ id: squatter.user.id, emailVerified: true });
    await expect(service.refresh(key, result.refreshToken)).resolves.toBeDefined();
    expect((await deps.users.findById(key.scope, squatter.user.id))?.passwordHash).toBeNull();
  });

  it('password reset: the new password stays, everything else set up before goes', async () => {
    const ctx = await squatted();
    const { service, key, deps, squatter, latestLinkToken } = ctx;
    await service.passwordReset.request(key, { email: VICTIM });
    await service.passwordReset.update(key, { token: await latestLinkToken(), newPassword: 'the victim chose this' });
    await expectSquatterLockedOut(ctx);
    const signedIn = await service.logIn(key, { email: VICTIM, password: 'the victim chose this' });
    if (signedIn.twoFactorRequired) throw new Error("the squatter's TOTP must be gone");
    expect(signedIn.user).toMatchObject({ id: squatter.user.id, emailVerified: true });
    expect((await deps.users.findById(key.scope, squatter.user.id))?.emailVerified).toBe(true);
  });

  it('a verified account keeps what its owner set up: magic link keeps the password, a reset keeps TOTP and passkeys', async () => {
    const ctx = await squatted();
    const { service, key, deps, squatter, latestLinkToken, passkeySignIn } = ctx;
    await deps.users.markEmailVerified(key.scope, squatter.user.id);
    await service.magicLink.request(key, { email: VICTIM });
    expect(await service.magicLink.verify(key.project, await latestLinkToken())).toMatchObject({ twoFactorRequired: true });
    await expect(service.logIn(key, { email: VICTIM, password: PASSWORD })).resolves.toMatchObject({ twoFactorRequired: true });
    await service.passwordReset.request(key, { email: VICTIM });
    await service.passwordReset.update(key, { token: await latestLinkToken(), newPassword: 'a new password' });
    expect((await deps.twoFactor.findTotp(key.scope, squatter.user.id))?.status).toBe('enabled');
    await expect(passkeySignIn()).resolves.toMatchObject({ user: { id: squatter.user.id } });
  });

  it('the claim happens once: a second magic link of the now verified owner ends nothing', async () => {
    const ctx = await squatted();
    const { service, key, latestLinkToken } = ctx;
    await service.magicLink.request(key, { email: VICTIM });
    const first = await service.magicLink.verify(key.project, await latestLinkToken());
    if (first.twoFactorRequired) throw new Error('no second factor expected');
    await service.magicLink.request(key, { email: VICTIM });
    const second = await service.magicLink.verify(key.project, await latestLinkToken());
    if (second.twoFactorRequired) throw new Error('no second factor expected');
    await expect(service.refresh(key, first.refreshToken)).resolves.toBeDefined();
    await expect(service.getMe(key, second.accessToken)).resolves.toBeDefined();
  });
});
