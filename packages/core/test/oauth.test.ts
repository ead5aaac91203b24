import type { FakeOAuthProviderClient, FakeAccount } from '../src/testing/fake-oauth-provider-client';
import { oauthSecretContext } from '../src/domain/oauth';
import { hotp, fromBase32 } from '../src/testing/reference-totp';
import { totpStepAt } from '../src/domain/two-factor';
import { PASSWORD, serviceWithProject } from './helpers';

// Core's rules of social sign-in over the in-memory fake provider. The same flow runs over HTTP
// against real identity providers on loopback in apps/api/test/oauth-*.test.ts.

const APP = 'https://app.example.test/cb';
const ADA: FakeAccount = { subject: 'gh-1', email: 'Ada@Example.test', emailVerified: true };

async function oauthProject(settings: Parameters<typeof serviceWithProject>[0] = {}) {
  const ctx = await serviceWithProject({ redirectUrls: [APP], ...settings });
  const projectId = ctx.created.project.id;
  const configure = (environment: 'production' | 'sandbox' = 'production') =>
    ctx.service.admin.configureOAuthProvider(projectId, 'github', { environment, enabled: true, clientId: 'gh-client', clientSecret: 'gh-secret' });
  await configure();
  const fake = ctx.deps.oauthClient as FakeOAuthProviderClient;
  /** Initiate, sign in at the provider, come back: the query the caller's page receives. */
  const signIn = async (account: FakeAccount, key = ctx.production) => {
    const { authorizationUrl } = await ctx.service.oauth.start(key, 'github', { state: 'caller-state' });
    const { redirectUrl } = await ctx.service.oauth.callback('github', fake.approve(authorizationUrl, account));
    return new URL(redirectUrl).searchParams;
  };
  const exchange = (code: string | null, key = ctx.production) => ctx.service.oauth.exchange(key, code ?? '');
  return { ...ctx, projectId, configure, fake, signIn, exchange };
}

describe('social sign-in (core)', () => {
  it('stores the client secret sealed, bound to its tenant and provider', async () => {
    const { deps, production } = await oauthProject();
    const stored = await deps.oauthProviders.find(production.scope, 'github');
    expect(stored?.sealedClientSecret).not.toContain('gh-secret');
    expect(deps.secretBox.open(stored!.sealedClientSecret, oauthSecretContext(production.scope, 'github'))).toBe('gh-secret');
    expect(() => deps.secretBox.open(stored!.sealedClientSecret, oauthSecretContext(production.scope, 'discord'))).toThrow();
  });

  it('creates a verified, passwordless user and signs in through a single-use exchange code', async () => {
    const { signIn, exchange, deps, production } = await oauthProject({ defaultMeta: { plan: 'trial' } });
    const query = await signIn(ADA);
    expect([...query.keys()]).toEqual(['code', 'provider', 'state']);
    expect(query.get('provider')).toBe('github');
    expect(query.get('state')).toBe('caller-state');
    const { provider, result } = await exchange(query.get('code'));
    expect(provider).toBe('github');
    if (result.twoFactorRequired) throw new Error('unexpected challenge');
    expect(result.user).toMatchObject({ email: 'ada@example.test', emailVerified: true, passwordHash: null, meta: { plan: 'trial' } });
    expect(await deps.identities.listForUser(production.scope, result.user.id)).toEqual([expect.objectContaining({ provider: 'github', subject: 'gh-1', email: 'ada@example.test' })]);
    await expect(exchange(query.get('code'))).rejects.toMatchObject({ code: 'invalid_token' });
    // A second sign-in with the same account finds the same user through the identity.
    const again = await exchange((await signIn({ ...ADA, email: 'renamed@example.test' })).get('code'));
    expect(again.result.twoFactorRequired === false && again.result.user.id).toBe(result.user.id);
  });

  it('expires exchange codes after 60 seconds and never accepts them in another scope', async () => {
    const { signIn, exchange, deps, sandbox } = await oauthProject();
    const first = await signIn(ADA);
    await expect(exchange(first.get('code'), sandbox)).rejects.toMatchObject({ code: 'invalid_token' });
    const second = await signIn(ADA);
    deps.clock.advance(61);
    await expect(exchange(second.get('code'))).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('never links or creates an account for an unverified provider address', async () => {
    const { signIn, service, production, deps } = await oauthProject();
    await service.signUp(production, { email: 'ada@example.test', password: PASSWORD });
    const query = await signIn({ ...ADA, emailVerified: false });
    expect(query.get('error')).toBe('email_not_verified');
    expect(query.has('code')).toBe(false);
    expect((await signIn({ subject: 'gh-2', emailVerified: true })).get('error')).toBe('email_not_verified');
    expect(await deps.users.count(production.scope)).toBe(1);
  });

  it('links a verified address to the existing verified account and keeps its password', async () => {
    const { signIn, exchange, service, production, deps } = await oauthProject();
    const { user } = await service.signUp(production, { email: 'ada@example.test', password: PASSWORD });
    await deps.users.markEmailVerified(production.scope, user.id);
    const { result } = await exchange((await signIn(ADA)).get('code'));
    expect(!result.twoFactorRequired && result.user.id).toBe(user.id);
    await expect(service.logIn(production, { email: 'ada@example.test', password: PASSWORD })).resolves.toBeDefined();
  });

  it('takes an unverified account away from whoever created it: password, TOTP, sessions end', async () => {
    const { signIn, exchange, service, production, deps } = await oauthProject();
    const squatter = await service.signUp(production, { email: 'ada@example.test', password: PASSWORD });
    const { secret } = await service.totp.start(production, squatter.accessToken);
    await service.totp.confirm(production, squatter.accessToken, hotp(fromBase32(secret), totpStepAt(deps.clock.now())));
    const { result } = await exchange((await signIn(ADA)).get('code'));
    if (result.twoFactorRequired) throw new Error('the squatter TOTP must be gone');
    expect(result.user).toMatchObject({ id: squatter.user.id, passwordHash: null, emailVerified: true });
    await expect(service.logIn(production, { email: 'ada@example.test', password: PASSWORD })).rejects.toMatchObject({ code: 'invalid_credentials' });
    await expect(service.refresh(production, squatter.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    await expect(service.getMe(production, squatter.accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
    expect(await deps.twoFactor.findTotp(production.scope, squatter.user.id)).toBeNull();
  });

  it('refuses banned users at the callback and at the exchange, and deleted users at the exchange', async () => {
    const { signIn, exchange, service, production } = await oauthProject();
    const { result } = await exchange((await signIn(ADA)).get('code'));
    const userId = result.twoFactorRequired ? '' : result.user.id;
    const pending = (await signIn(ADA)).get('code');
    await service.admin.banUser(production.scope, userId);
    expect((await signIn(ADA)).get('error')).toBe('user_banned');
    await expect(exchange(pending)).rejects.toMatchObject({ code: 'user_banned' });
    await service.admin.unbanUser(production.scope, userId);
    const orphan = (await signIn(ADA)).get('code');
    await service.admin.deleteUser(production.scope, userId);
    await expect(exchange(orphan)).rejects.toMatchObject({ code: 'user_not_found' });
  });

  it('counts OAuth users toward the production plan limit, never in sandbox', async () => {
    const { signIn, exchange, configure, sandbox } = await oauthProject({ userLimit: 1 });
    await exchange((await signIn(ADA)).get('code'));
    expect((await signIn({ ...ADA, subject: 'gh-2', email: 'bob@example.test' })).get('error')).toBe('plan_limit_reached');
    await configure('sandbox');
    for (const [subject, email] of [
      ['gh-1', 'ada@example.test'],
      ['gh-2', 'bob@example.test'],
    ]) {
      expect((await signIn({ subject, email, emailVerified: true }, sandbox)).has('code')).toBe(true);
    }
  });

  it('lets Sandbox use the settings of Production until Sandbox has its own; Production never borrows', async () => {
    const { signIn, exchange, service, projectId, sandbox, production, deps } = await oauthProject();
    // Configured once (Production): a Sandbox sign-in works with those settings, the user lives in Sandbox.
    const { authorizationUrl } = await service.oauth.start(sandbox, 'github', {});
    expect(new URL(authorizationUrl).searchParams.get('client_id')).toBe('gh-client');
    const { result } = await exchange((await signIn(ADA, sandbox)).get('code'), sandbox);
    if (result.twoFactorRequired) throw new Error('unexpected challenge');
    expect(await deps.users.findById(sandbox.scope, result.user.id)).not.toBeNull();
    expect(await deps.users.count(production.scope)).toBe(0);
    // Settings of its own win, and disabled ones keep the provider out of Sandbox.
    await service.admin.configureOAuthProvider(projectId, 'github', { environment: 'sandbox', enabled: true, clientId: 'gh-sandbox', clientSecret: 's' });
    expect(new URL((await service.oauth.start(sandbox, 'github', {})).authorizationUrl).searchParams.get('client_id')).toBe('gh-sandbox');
    await service.admin.configureOAuthProvider(projectId, 'github', { environment: 'sandbox', enabled: false, clientId: 'gh-sandbox' });
    await expect(service.oauth.start(sandbox, 'github', {})).rejects.toMatchObject({ code: 'validation_error' });
    // The other way round: Sandbox-only settings do not serve Production.
    await service.admin.configureOAuthProvider(projectId, 'discord', { environment: 'sandbox', enabled: true, clientId: 'dc', clientSecret: 's' });
    await expect(service.oauth.start(production, 'discord', {})).rejects.toMatchObject({ code: 'validation_error' });
  });

  it('gives a TOTP user the second-factor challenge instead of tokens', async () => {
    const { signIn, exchange, service, production, deps } = await oauthProject();
    const { result } = await exchange((await signIn(ADA)).get('code'));
    if (result.twoFactorRequired) throw new Error('no TOTP yet');
    const { secret } = await service.totp.start(production, result.accessToken);
    await service.totp.confirm(production, result.accessToken, hotp(fromBase32(secret), totpStepAt(deps.clock.now())));
    const next = await exchange((await signIn(ADA)).get('code'));
    expect(next).toEqual({ provider: 'github', result: { twoFactorRequired: true, twoFactorToken: expect.any(String), methods: ['totp'] } });
  });

  it('refuses states that are replayed, expired or presented at another provider', async () => {
    const { service, production, fake, deps, projectId } = await oauthProject();
    await service.admin.configureOAuthProvider(projectId, 'discord', { environment: 'production', enabled: true, clientId: 'd', clientSecret: 's' });
    const start = async () => fake.approve((await service.oauth.start(production, 'github', {})).authorizationUrl, ADA);
    const query = await start();
    await service.oauth.callback('github', query);
    const invalid = { code: 'validation_error' };
    await expect(service.oauth.callback('github', query)).rejects.toMatchObject(invalid);
    const late = await start();
    deps.clock.advance(10 * 60 + 1);
    await expect(service.oauth.callback('github', late)).rejects.toMatchObject(invalid);
    await expect(service.oauth.callback('discord', await start())).rejects.toMatchObject(invalid);
    await expect(service.oauth.callback('github', { ...(await start()), state: undefined })).rejects.toMatchObject(invalid);
  });
});
