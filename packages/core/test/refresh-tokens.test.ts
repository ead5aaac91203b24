import { sha256Hex } from '../src/domain/secrets';
import { PASSWORD, serviceWithProject } from './helpers';

async function signedIn(settings = {}) {
  const ctx = await serviceWithProject(settings);
  const first = await ctx.service.signUp(ctx.production, { email: 'ada@example.test', password: PASSWORD });
  return { ...ctx, first };
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));

describe('refreshTokens', () => {
  it('rotates: new tokens, same session id, the old token is spent', async () => {
    const { service, production, first } = await signedIn();
    const next = await service.refresh(production, first.refreshToken);
    expect(next.refreshToken).not.toBe(first.refreshToken);
    expect(next.accessToken).not.toBe(first.accessToken);
    expect(claimsOf(next.accessToken).sid).toBe(claimsOf(first.accessToken).sid);
    const again = await service.refresh(production, next.refreshToken);
    expect(again.refreshToken).not.toBe(next.refreshToken);
  });

  it('waits for a check started beside it: a refusal comes first and uses nothing up, whatever the token', async () => {
    const { service, production, first } = await signedIn();
    const refused = new Error('refused by the caller');
    let release!: () => void;
    const later = new Promise<void>((resolve) => (release = resolve));
    // While the check is pending nothing is decided (the token is neither used up nor answered for).
    const waiting = service.refresh(production, first.refreshToken, { admitted: later });
    let settled = false;
    void waiting.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    await expect(service.refresh(production, first.refreshToken, { admitted: Promise.reject(refused) })).rejects.toBe(refused);
    await expect(service.refresh(production, 'not-a-token', { admitted: Promise.reject(refused) })).rejects.toBe(refused);
    release();
    // The refused call used nothing up: the waiting one rotates the token.
    await expect(waiting).resolves.toMatchObject({ expiresIn: expect.any(Number) });
  });

  it('a replayed token revokes every session of the user, and their access tokens die at /me', async () => {
    const { service, production, first } = await signedIn();
    const other = await service.logIn(production, { email: 'ada@example.test', password: PASSWORD });
    if (other.twoFactorRequired) throw new Error('no second factor expected');
    const next = await service.refresh(production, first.refreshToken);
    await expect(service.refresh(production, first.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    await expect(service.refresh(production, next.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    await expect(service.refresh(production, other.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    for (const token of [first.accessToken, next.accessToken, other.accessToken]) {
      await expect(service.getMe(production, token)).rejects.toMatchObject({ code: 'invalid_token' });
    }
  });

  it('spares other users when one user replays', async () => {
    const { service, production, first } = await signedIn();
    const bystander = await service.signUp(production, { email: 'bob@example.test', password: PASSWORD });
    await service.refresh(production, first.refreshToken);
    await expect(service.refresh(production, first.refreshToken)).rejects.toThrow();
    await expect(service.refresh(production, bystander.refreshToken)).resolves.toBeDefined();
  });

  it("a token of an ended session is refused without touching the user's other sessions", async () => {
    const { service, production, first } = await signedIn();
    const next = await service.refresh(production, first.refreshToken);
    await service.logOut(production, next.refreshToken);
    const other = await service.logIn(production, { email: 'ada@example.test', password: PASSWORD });
    if (!('refreshToken' in other)) throw new Error('expected tokens');
    // Both the used and the current token of the logged-out family are dead...
    await expect(service.refresh(production, first.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    await expect(service.refresh(production, next.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    // ...and presenting them revoked nothing else.
    await expect(service.refresh(production, other.refreshToken)).resolves.toBeDefined();
  });

  it('of two concurrent refreshes with one token exactly one succeeds', async () => {
    const { service, production, first } = await signedIn();
    const results = await Promise.allSettled([service.refresh(production, first.refreshToken), service.refresh(production, first.refreshToken)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('refuses unknown, expired and other-environment tokens', async () => {
    const { service, production, sandbox, first, deps } = await signedIn({ refreshTokenTtlSeconds: 3600 });
    await expect(service.refresh(production, 'not-a-token')).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    await expect(service.refresh(sandbox, first.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    deps.clock.advance(3601);
    await expect(service.refresh(production, first.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
  });

  it('stores refresh tokens only as SHA-256', async () => {
    const { production, first, deps } = await signedIn();
    expect(await deps.sessions.findRefreshToken(production.scope, first.refreshToken)).toBeNull();
    expect(await deps.sessions.findRefreshToken(production.scope, sha256Hex(first.refreshToken))).not.toBeNull();
  });

  describe('with a reuse grace window', () => {
    it('hands a racing tab the same successor inside the window', async () => {
      const { service, production, first, deps } = await signedIn({ refreshReuseGraceSeconds: 10 });
      const a = await service.refresh(production, first.refreshToken);
      deps.clock.advance(5);
      const b = await service.refresh(production, first.refreshToken);
      expect(b.refreshToken).toBe(a.refreshToken);
      await expect(service.refresh(production, b.refreshToken)).resolves.toBeDefined();
    });

    it('hands every concurrent refresh of one token the same successor, and revokes nothing', async () => {
      const { service, production, first } = await signedIn({ refreshReuseGraceSeconds: 10 });
      const results = await Promise.all(Array.from({ length: 5 }, () => service.refresh(production, first.refreshToken)));
      expect(new Set(results.map((r) => r.refreshToken)).size).toBe(1);
      await expect(service.getMe(production, results[0].accessToken)).resolves.toBeDefined();
      await expect(service.refresh(production, results[4].refreshToken)).resolves.toBeDefined();
    });

    it('treats reuse after the window, or after the successor was used, as replay', async () => {
      const late = await signedIn({ refreshReuseGraceSeconds: 10 });
      await late.service.refresh(late.production, late.first.refreshToken);
      late.deps.clock.advance(11);
      await expect(late.service.refresh(late.production, late.first.refreshToken)).rejects.toMatchObject({
        code: 'invalid_refresh_token',
      });
      const spent = await signedIn({ refreshReuseGraceSeconds: 10 });
      const next = await spent.service.refresh(spent.production, spent.first.refreshToken);
      await spent.service.refresh(spent.production, next.refreshToken);
      await expect(spent.service.refresh(spent.production, spent.first.refreshToken)).rejects.toMatchObject({
        code: 'invalid_refresh_token',
      });
    });
  });

  describe('absolute session lifetime', () => {
    const DAY = 24 * 60 * 60;

    it('a session kept alive by refreshes ends 90 days after sign-in by default: refresh is 401, the session is revoked', async () => {
      const { service, production, first, deps } = await signedIn();
      let tokens: { refreshToken: string; accessToken: string } = first;
      // Refreshed every 20 days: each rotation would otherwise give another 60 days.
      for (let day = 20; day < 90; day += 20) {
        deps.clock.advance(20 * DAY);
        tokens = await service.refresh(production, tokens.refreshToken);
      }
      deps.clock.advance(11 * DAY); // day 91
      await expect(service.refresh(production, tokens.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
      await expect(service.getMe(production, tokens.accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
    });

    it('follows the project setting, and the last refresh token never outlives the session', async () => {
      const { service, production, first, deps } = await signedIn({ absoluteSessionLifetimeSeconds: 10 * DAY });
      deps.clock.advance(9 * DAY);
      const last = await service.refresh(production, first.refreshToken);
      const record = await deps.sessions.findRefreshToken(production.scope, sha256Hex(last.refreshToken));
      expect(record?.expiresAt).toEqual(new Date(record!.sessionCreatedAt.getTime() + 10 * DAY * 1000));
      deps.clock.advance(DAY);
      await expect(service.refresh(production, last.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    });

    it('a session that ended is not a replay: the user keeps their other sessions', async () => {
      const { service, production, first, deps } = await signedIn({ absoluteSessionLifetimeSeconds: 10 * DAY });
      deps.clock.advance(10 * DAY);
      const other = await service.logIn(production, { email: 'ada@example.test', password: PASSWORD });
      if (other.twoFactorRequired) throw new Error('no second factor expected');
      await expect(service.refresh(production, first.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
      await expect(service.refresh(production, other.refreshToken)).resolves.toBeDefined();
    });
  });
});
