import { newRefreshToken, refreshTokenKey, refreshTokenUnder, sameRefreshSecret } from '../src/domain/refresh-token';
import { hmacBase64Url, newBearerSecret, sha256Hex } from '../src/domain/secrets';
import { DEFAULT_PLAN_USER_LIMITS } from '../src/domain/project';
import { TEST_ISSUER } from '../src/testing/in-memory-deps';
import { PASSWORD, serviceWithProject } from './helpers';

/** The service's refresh tokens: bare secrets (the default) or carrying their issue time. */
const issueTime = (on: boolean) => ({ settings: { issuer: TEST_ISSUER, planUserLimits: DEFAULT_PLAN_USER_LIMITS, refreshTokenIssueTime: on } });

async function signedIn(settings = {}, withIssueTime = true) {
  const ctx = await serviceWithProject(settings, issueTime(withIssueTime));
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

  describe('the new access token is signed while the rotation is under way', () => {
    /** Holds every rotation until released, and records when the codec was asked to sign. */
    async function heldRotation() {
      const ctx = await signedIn();
      const { deps } = ctx;
      const order: string[] = [];
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const rotate = deps.sessions.rotate.bind(deps.sessions);
      deps.sessions.rotate = async (...args) => {
        order.push('rotation started');
        await released;
        const result = await rotate(...args);
        order.push(`rotation ${result.status}`);
        return result;
      };
      const sign = deps.tokens.sign.bind(deps.tokens);
      deps.tokens.sign = (...args) => {
        order.push('sign started');
        return sign(...args);
      };
      return { ...ctx, order, release };
    }

    it('signs before the rotation answers, and answers with that token once it has', async () => {
      const { service, production, first, order, release } = await heldRotation();
      const refreshing = service.refresh(production, first.refreshToken);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect([...order].sort()).toEqual(['rotation started', 'sign started']);
      release();
      const next = await refreshing;
      expect(order.at(-1)).toBe('rotation rotated');
      expect(claimsOf(next.accessToken)).toMatchObject({ sid: claimsOf(first.accessToken).sid, sub: claimsOf(first.accessToken).sub });
      expect(await service.getMe(production, next.accessToken)).toMatchObject({ email: 'ada@example.test' });
    });

    it('hands out nothing it signed when the rotation refuses the token', async () => {
      const { service, production, first, order, release } = await heldRotation();
      const winner = service.refresh(production, first.refreshToken);
      const loser = service.refresh(production, first.refreshToken);
      release();
      const results = await Promise.allSettled([winner, loser]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      // Both signed ahead; only the rotation's winner answered with a token.
      expect(order.filter((step) => step === 'sign started')).toHaveLength(2);
      expect(order.filter((step) => step === 'rotation rotated')).toHaveLength(1);
    });

    it('signs nothing for a banned user, whose token is still used up', async () => {
      const { service, production, first, deps, order, release } = await heldRotation();
      // Banned in the store but with the session still live (the ban's revocation not yet seen).
      await deps.users.setBanned(production.scope, claimsOf(first.accessToken).sub, deps.clock.now());
      release();
      await expect(service.refresh(production, first.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
      expect(order).toEqual(['rotation started', 'rotation rotated']);
    });

    it('a failed sign fails the refresh only after the rotation, and leaves no rejection unhandled', async () => {
      const { service, production, first, deps, order, release } = await heldRotation();
      const failure = new Error('signing key store down');
      deps.tokens.sign = async () => {
        order.push('sign failed');
        throw failure;
      };
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        const refreshing = service.refresh(production, first.refreshToken);
        let settled = false;
        void refreshing.then(
          () => (settled = true),
          () => (settled = true),
        );
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect([...order].sort()).toEqual(['rotation started', 'sign failed']);
        expect(settled).toBe(false);
        release();
        await expect(refreshing).rejects.toBe(failure);
        expect(order.at(-1)).toBe('rotation rotated');
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    });
  });

  it('refuses unknown, expired and other-environment tokens', async () => {
    const { service, production, sandbox, first, deps } = await signedIn({ refreshTokenTtlSeconds: 3600 });
    await expect(service.refresh(production, 'not-a-token')).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    await expect(service.refresh(sandbox, first.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    deps.clock.advance(3601);
    await expect(service.refresh(production, first.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
  });

  it("stores refresh tokens only under their secret's SHA-256, after their issue time", async () => {
    const { production, first, deps } = await signedIn();
    const [issued, secret] = first.refreshToken.split('.');
    expect(issued).toBe(deps.clock.now().getTime().toString(16).padStart(12, '0'));
    expect(await deps.sessions.findRefreshToken(production.scope, first.refreshToken)).toBeNull();
    expect(await deps.sessions.findRefreshToken(production.scope, `z${issued}${sha256Hex(secret)}`)).not.toBeNull();
  });

  it('issues bare secrets by default, under their SHA-256; either form refreshes and logs out whichever the setting', async () => {
    const { service, production, first, deps } = await signedIn({}, false);
    expect(first.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await deps.sessions.findRefreshToken(production.scope, sha256Hex(first.refreshToken))).not.toBeNull();
    const bare = await service.refresh(production, first.refreshToken);
    expect(bare.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    deps.settings.refreshTokenIssueTime = true;
    const timed = await service.refresh(production, bare.refreshToken);
    expect(timed.refreshToken).toMatch(/^[0-9a-f]{12}\.[A-Za-z0-9_-]{43}$/);
    deps.settings.refreshTokenIssueTime = false;
    const back = await service.refresh(production, timed.refreshToken);
    expect(back.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const other = await service.logIn(production, { email: 'ada@example.test', password: PASSWORD });
    if (other.twoFactorRequired) throw new Error('no second factor expected');
    deps.settings.refreshTokenIssueTime = true;
    await service.logOut(production, other.refreshToken);
    await expect(service.refresh(production, other.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    await expect(service.refresh(production, back.refreshToken)).resolves.toBeDefined();
  });

  it('refreshes a token of the earlier form (a bare secret under its SHA-256) into the current form, and logs it out', async () => {
    const { service, production, first, deps } = await signedIn();
    const user = claimsOf(first.accessToken).sub as string;
    const now = deps.clock.now();
    const bare = () => ({ id: deps.random.uuid(), token: newBearerSecret(deps.random) });
    const open = async ({ id, token }: { id: string; token: string }) => {
      const session = { id, userId: user, rotationKey: newBearerSecret(deps.random), createdAt: now, refreshTokenHash: sha256Hex(token), refreshExpiresAt: new Date(now.getTime() + 3_600_000) };
      await deps.sessions.create(production.scope, session);
    };
    const [kept, ended] = [bare(), bare()];
    await open(kept);
    await open(ended);
    const next = await service.refresh(production, kept.token);
    expect(next.refreshToken).toMatch(/^[0-9a-f]{12}\.[A-Za-z0-9_-]{43}$/);
    await expect(service.refresh(production, next.refreshToken)).resolves.toBeDefined();
    await service.logOut(production, ended.token);
    expect(await deps.sessions.isActive(production.scope, ended.id)).toBe(false);
  });

  describe('keys', () => {
    const secret = 'A'.repeat(43);
    const at = (ms: number) => newRefreshToken(new Date(ms), secret);

    it('sort in the order the tokens were issued, after every key of the earlier form', () => {
      const times = [0, 1, 255, 256, Date.UTC(2026, 10, 28), Date.UTC(2026, 10, 28) + 1, Date.UTC(3000, 0, 1)];
      const keys = times.map((ms) => refreshTokenKey(at(ms)));
      expect([...keys].sort()).toEqual(keys);
      expect(keys.every((key) => key > 'f'.repeat(64))).toBe(true);
      expect(refreshTokenKey(secret)).toBe(sha256Hex(secret));
    });

    it('of one secret name the same secret whatever their issue time, or form; others do not', () => {
      expect(sameRefreshSecret(refreshTokenKey(at(1)), refreshTokenKey(at(2)))).toBe(true);
      expect(sameRefreshSecret(refreshTokenKey(at(1)), sha256Hex(secret))).toBe(true);
      expect(sameRefreshSecret(refreshTokenKey(at(1)), refreshTokenKey(newRefreshToken(new Date(1), 'B'.repeat(43))))).toBe(false);
    });

    it('rebuild the token stored under them, in the form it was stored', () => {
      expect(refreshTokenUnder(refreshTokenKey(at(12345)), secret)).toBe(at(12345));
      expect(refreshTokenUnder(sha256Hex(secret), secret)).toBe(secret);
    });
  });

  describe.each([
    ['carrying their issue time', true],
    ['bare (the default)', false],
  ])('with a reuse grace window, tokens %s', (_form, on) => {
    it('hands a racing tab the same successor inside the window', async () => {
      const { service, production, first, deps } = await signedIn({ refreshReuseGraceSeconds: 10 }, on);
      const a = await service.refresh(production, first.refreshToken);
      deps.clock.advance(5);
      const b = await service.refresh(production, first.refreshToken);
      expect(b.refreshToken).toBe(a.refreshToken);
      await expect(service.refresh(production, b.refreshToken)).resolves.toBeDefined();
    });

    it('hands a racing tab the successor an earlier release stored (a bare secret) as it was handed out', async () => {
      const { service, production, first, deps } = await signedIn({ refreshReuseGraceSeconds: 10 }, on);
      const record = await deps.sessions.findRefreshToken(production.scope, refreshTokenKey(first.refreshToken));
      const successor = hmacBase64Url(record!.rotationKey, first.refreshToken);
      const now = deps.clock.now();
      const rotation = { presentedHash: refreshTokenKey(first.refreshToken), successorHash: sha256Hex(successor), now, expiresAt: new Date(now.getTime() + 3_600_000), reuseGraceSeconds: 10 };
      expect(await deps.sessions.rotate(production.scope, rotation)).toEqual({ status: 'rotated' });
      deps.clock.advance(5);
      const racer = await service.refresh(production, first.refreshToken);
      expect(racer.refreshToken).toBe(successor);
      await expect(service.refresh(production, successor)).resolves.toBeDefined();
    });

    it('hands every concurrent refresh of one token the same successor, and revokes nothing', async () => {
      const { service, production, first } = await signedIn({ refreshReuseGraceSeconds: 10 }, on);
      const results = await Promise.all(Array.from({ length: 5 }, () => service.refresh(production, first.refreshToken)));
      expect(new Set(results.map((r) => r.refreshToken)).size).toBe(1);
      await expect(service.getMe(production, results[0].accessToken)).resolves.toBeDefined();
      await expect(service.refresh(production, results[4].refreshToken)).resolves.toBeDefined();
    });

    it('treats reuse after the window, or after the successor was used, as replay', async () => {
      const late = await signedIn({ refreshReuseGraceSeconds: 10 }, on);
      await late.service.refresh(late.production, late.first.refreshToken);
      late.deps.clock.advance(11);
      await expect(late.service.refresh(late.production, late.first.refreshToken)).rejects.toMatchObject({
        code: 'invalid_refresh_token',
      });
      const spent = await signedIn({ refreshReuseGraceSeconds: 10 }, on);
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
      const record = await deps.sessions.findRefreshToken(production.scope, refreshTokenKey(last.refreshToken));
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
