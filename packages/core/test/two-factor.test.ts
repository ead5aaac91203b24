import { hotp, fromBase32 } from '../src/testing/reference-totp';
import { totpStepAt } from '../src/domain/two-factor';
import { sha256Hex } from '../src/domain/secrets';
import { updatePassword } from '../src/use-cases/email/update-password';
import { PASSWORD, serviceWithProject } from './helpers';

// Codes here come from the in-memory reference algorithm; the same rules run over HTTP with the
// otpauth adapter and codes from Debian's oathtool in apps/api/test/two-factor-totp.test.ts.

async function enrolled() {
  const ctx = await serviceWithProject({ name: 'Acme' });
  const { service, production: key, deps } = ctx;
  const { accessToken, user } = await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
  const { secret, otpauthUrl } = await service.totp.start(key, accessToken);
  const code = (stepOffset = 0) => hotp(fromBase32(secret), totpStepAt(deps.clock.now()) + stepOffset);
  const { recoveryCodes } = await service.totp.confirm(key, accessToken, code());
  deps.clock.advance(30); // the confirming code's step is used up
  const challenge = async () => {
    const result = await service.logIn(key, { email: 'ada@example.test', password: PASSWORD });
    if (!result.twoFactorRequired) throw new Error('expected a challenge');
    return result.twoFactorToken;
  };
  const verify = (twoFactorToken: string, c: string) => service.totp.verify(key, { twoFactorToken, code: c });
  return { ...ctx, key, accessToken, user, secret, otpauthUrl, recoveryCodes, code, challenge, verify };
}

describe('TOTP second factor', () => {
  it('answers login with a challenge, and the challenge with the login bundle', async () => {
    const { service, key, deps, code, challenge, verify, otpauthUrl, recoveryCodes } = await enrolled();
    expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\/Acme:ada%40example\.test\?/);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const result = await service.logIn(key, { email: 'ada@example.test', password: PASSWORD });
    expect(result).toEqual({ twoFactorRequired: true, twoFactorToken: expect.any(String), methods: ['totp'] });
    const signedIn = await verify(await challenge(), code());
    expect(signedIn.user.lastLoginAt).toEqual(deps.clock.now());
    expect((await service.getMe(key, signedIn.accessToken)).email).toBe('ada@example.test');
  });

  it('accepts a code once, also inside its own step, and no older code after it', async () => {
    const { code, challenge, verify } = await enrolled();
    const current = code();
    await verify(await challenge(), current);
    await expect(verify(await challenge(), current)).rejects.toMatchObject({ code: 'invalid_totp_code' });
    await expect(verify(await challenge(), code(-1))).rejects.toMatchObject({ code: 'invalid_totp_code' });
  });

  it('tolerates one step of drift either way, not two', async () => {
    const { code, challenge, verify } = await enrolled();
    await expect(verify(await challenge(), code(-2))).rejects.toMatchObject({ code: 'invalid_totp_code' });
    await expect(verify(await challenge(), code(2))).rejects.toMatchObject({ code: 'invalid_totp_code' });
    await expect(verify(await challenge(), code(1))).resolves.toBeDefined();
  });

  it('kills the challenge after five wrong codes and a challenge signs in once', async () => {
    const { code, challenge, verify, deps } = await enrolled();
    const token = await challenge();
    for (let i = 0; i < 5; i += 1) await expect(verify(token, '000000')).rejects.toMatchObject({ code: 'invalid_totp_code' });
    await expect(verify(token, code())).rejects.toMatchObject({ code: 'invalid_two_factor_token' });
    const fresh = await challenge();
    await verify(fresh, code());
    deps.clock.advance(30);
    await expect(verify(fresh, code())).rejects.toMatchObject({ code: 'invalid_two_factor_token' });
  });

  it('lets at most five of many concurrent guesses be checked', async () => {
    const { challenge, verify, code } = await enrolled();
    const token = await challenge();
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => verify(token, '000000').catch((e) => e.code)));
    expect(outcomes.filter((c) => c === 'invalid_totp_code')).toHaveLength(5);
    expect(outcomes.filter((c) => c === 'invalid_two_factor_token')).toHaveLength(15);
    await expect(verify(token, code())).rejects.toMatchObject({ code: 'invalid_two_factor_token' });
  });

  it('expires the challenge after five minutes', async () => {
    const { code, challenge, verify, deps } = await enrolled();
    const token = await challenge();
    deps.clock.advance(300);
    await expect(verify(token, code())).rejects.toMatchObject({ code: 'invalid_two_factor_token' });
  });

  it('takes a recovery code once, in any letter case and with or without the dash', async () => {
    const { challenge, verify, recoveryCodes } = await enrolled();
    await expect(verify(await challenge(), recoveryCodes[3].toUpperCase().replace('-', ' '))).resolves.toBeDefined();
    await expect(verify(await challenge(), recoveryCodes[3])).rejects.toMatchObject({ code: 'invalid_totp_code' });
  });

  it('disabling needs a current code; afterwards login signs in directly', async () => {
    const { service, key, accessToken, code, recoveryCodes } = await enrolled();
    await expect(service.totp.disable(key, accessToken, '000000')).rejects.toMatchObject({ code: 'invalid_totp_code' });
    await expect(service.totp.disable(key, accessToken, recoveryCodes[0])).rejects.toMatchObject({ code: 'invalid_totp_code' });
    await service.totp.disable(key, accessToken, code());
    const result = await service.logIn(key, { email: 'ada@example.test', password: PASSWORD });
    expect(result.twoFactorRequired).toBe(false);
  });

  it('refuses to restart setup while enabled and to confirm a setup never started', async () => {
    const { service, key, accessToken } = await enrolled();
    await expect(service.totp.start(key, accessToken)).rejects.toMatchObject({ code: 'validation_error' });
    const other = await service.signUp(key, { email: 'bob@example.test', password: PASSWORD });
    await expect(service.totp.confirm(key, other.accessToken, '123456')).rejects.toMatchObject({ code: 'validation_error' });
  });

  it('a wrong code does not confirm setup; a challenge dies when TOTP is turned off', async () => {
    const { service, key, code, challenge, verify, accessToken } = await enrolled();
    const token = await challenge();
    await service.totp.disable(key, accessToken, code());
    await expect(verify(token, code(1))).rejects.toMatchObject({ code: 'invalid_two_factor_token' });
    await service.totp.start(key, accessToken);
    await expect(service.totp.confirm(key, accessToken, '000000')).rejects.toMatchObject({ code: 'invalid_totp_code' });
  });

  it('a password reset of a verified account leaves TOTP on', async () => {
    const { deps, key, user, service, code, verify } = await enrolled();
    // Unverified, the reset would be the first proof of the mailbox, which ends TOTP (mailbox-proof.test.ts).
    await deps.users.markEmailVerified(key.scope, user.id);
    const token = 'reset-token-for-the-test';
    const now = deps.clock.now();
    await deps.oneTimeTokens.issue(key.scope, {
      tokenHash: sha256Hex(token),
      purpose: 'password_reset',
      userId: user.id,
      data: {},
      createdAt: now,
      expiresAt: new Date(now.getTime() + 60_000),
    });
    await updatePassword(deps, key.scope, key.project, { token, newPassword: 'a brand new password' });
    const result = await service.logIn(key, { email: 'ada@example.test', password: 'a brand new password' });
    if (!result.twoFactorRequired) throw new Error('the reset turned TOTP off');
    await expect(verify(result.twoFactorToken, code())).resolves.toBeDefined();
  });

  it('tells a banned user so only after the second factor', async () => {
    const { service, key, user, code, challenge, verify } = await enrolled();
    const token = await challenge();
    await service.admin.banUser(key.scope, user.id);
    await expect(verify(token, '000000')).rejects.toMatchObject({ code: 'invalid_totp_code' });
    await expect(verify(token, code())).rejects.toMatchObject({ code: 'user_banned' });
  });
});
