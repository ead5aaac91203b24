import type { TenantScope } from '../domain/environment';
import type { NewOneTimeToken } from '../domain/one-time-token';
import { sha256Hex } from '../domain/secrets';
import type { OneTimeTokenStore } from '../ports/one-time-token-store';
import { at, newId, seedScope, seedUser, type StoragePorts } from './storage-fixture';

export type OneTimeTokenStoreFactory = () => Promise<{
  ports: StoragePorts;
  oneTimeTokens: OneTimeTokenStore;
  close(): Promise<void>;
}>;

const T0 = at('2026-01-01T00:00:00.000Z');
const SOON = at('2026-01-01T00:05:00.000Z');
const EXPIRY = at('2026-01-01T00:15:00.000Z');

/** Contract every OneTimeTokenStore passes: single use, supersede, attempts, tenant isolation. */
export function oneTimeTokenStoreContract(label: string, factory: OneTimeTokenStoreFactory): void {
  describe(`OneTimeTokenStore contract: ${label}`, () => {
    let subject: Awaited<ReturnType<OneTimeTokenStoreFactory>>;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(async () => {
      await subject?.close();
    });
    const store = () => subject.oneTimeTokens;

    async function seeded(): Promise<{ scope: TenantScope; userId: string }> {
      const scope = await seedScope(subject.ports);
      const user = await seedUser(subject.ports, scope);
      return { scope, userId: user.id };
    }

    const token = (userId: string | null, overrides: Partial<NewOneTimeToken> = {}): NewOneTimeToken => ({
      tokenHash: sha256Hex(newId()),
      purpose: 'magic_link',
      userId,
      data: { redirect: 'https://app.example.test/cb', n: 1, nested: { ok: true } },
      createdAt: T0,
      expiresAt: EXPIRY,
      ...overrides,
    });

    it('consumes a token once and returns it as it was', async () => {
      const { scope, userId } = await seeded();
      const t = token(userId);
      await store().issue(scope, t);
      expect(await store().find(scope, 'magic_link', t.tokenHash)).toEqual({ ...t, consumedAt: null, failedAttempts: 0 });
      expect(await store().consume(scope, 'magic_link', t.tokenHash, SOON)).toEqual({ ...t, consumedAt: null, failedAttempts: 0 });
      expect(await store().consume(scope, 'magic_link', t.tokenHash, SOON)).toBeNull();
      expect((await store().find(scope, 'magic_link', t.tokenHash))?.consumedAt).toEqual(SOON);
    });

    it('of many concurrent consumes exactly one wins', async () => {
      const { scope, userId } = await seeded();
      const t = token(userId);
      await store().issue(scope, t);
      const results = await Promise.all(Array.from({ length: 10 }, () => store().consume(scope, 'magic_link', t.tokenHash, SOON)));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });

    it('refuses expired tokens, other purposes and other scopes', async () => {
      const { scope, userId } = await seeded();
      const t = token(userId, { purpose: 'password_reset' });
      await store().issue(scope, t);
      expect(await store().consume(scope, 'magic_link', t.tokenHash, SOON)).toBeNull();
      const sandbox = { ...scope, environment: 'sandbox' as const };
      const other = await seedScope(subject.ports);
      for (const foreign of [sandbox, other]) {
        expect(await store().consume(foreign, 'password_reset', t.tokenHash, SOON)).toBeNull();
        expect(await store().find(foreign, 'password_reset', t.tokenHash)).toBeNull();
        expect(await store().revokeForUser(foreign, userId, ['password_reset'], SOON)).toBe(0);
      }
      expect(await store().consume(scope, 'password_reset', t.tokenHash, EXPIRY)).toBeNull();
      const fresh = token(userId, { purpose: 'password_reset' });
      await store().issue(scope, fresh);
      expect(await store().consume(scope, 'password_reset', fresh.tokenHash, SOON)).not.toBeNull();
    });

    it('a newer token supersedes older open ones of the same user and purpose only', async () => {
      const { scope, userId } = await seeded();
      const other = await seedUser(subject.ports, scope);
      const old = token(userId);
      const otherPurpose = token(userId, { purpose: 'password_reset' });
      const otherUser = token(other.id);
      for (const t of [old, otherPurpose, otherUser]) await store().issue(scope, t);
      const newer = token(userId, { createdAt: SOON });
      await store().issue(scope, newer, { supersede: true });
      expect(await store().consume(scope, 'magic_link', old.tokenHash, SOON)).toBeNull();
      expect(await store().consume(scope, 'magic_link', newer.tokenHash, SOON)).not.toBeNull();
      expect(await store().consume(scope, 'password_reset', otherPurpose.tokenHash, SOON)).not.toBeNull();
      expect(await store().consume(scope, 'magic_link', otherUser.tokenHash, SOON)).not.toBeNull();
    });

    it("finds the user's newest open token of a purpose, in its scope only", async () => {
      const { scope, userId } = await seeded();
      const older = token(userId);
      const newer = token(userId, { createdAt: SOON });
      for (const t of [older, newer, token(userId, { purpose: 'password_reset', createdAt: SOON })]) await store().issue(scope, t);
      expect(await store().findOpenForUser(scope, 'magic_link', userId, SOON)).toMatchObject({ tokenHash: newer.tokenHash, consumedAt: null, failedAttempts: 0 });
      expect(await store().findOpenForUser({ ...scope, environment: 'sandbox' }, 'magic_link', userId, SOON)).toBeNull();
      expect(await store().findOpenForUser(scope, 'two_factor', userId, SOON)).toBeNull();
      expect(await store().findOpenForUser(scope, 'magic_link', 'not-an-id', SOON)).toBeNull();
      await store().consume(scope, 'magic_link', newer.tokenHash, SOON);
      expect((await store().findOpenForUser(scope, 'magic_link', userId, SOON))?.tokenHash).toBe(older.tokenHash);
      expect(await store().findOpenForUser(scope, 'magic_link', userId, EXPIRY)).toBeNull();
    });

    it('kills a token after maxAttempts wrong answers', async () => {
      const { scope, userId } = await seeded();
      const t = token(userId, { purpose: 'two_factor' });
      await store().issue(scope, t);
      const left = [];
      for (let i = 0; i < 3; i += 1) {
        left.push(await store().recordFailedAttempt(scope, 'two_factor', t.tokenHash, { maxAttempts: 3, now: SOON }));
      }
      expect(left).toEqual([2, 1, 0]);
      expect(await store().consume(scope, 'two_factor', t.tokenHash, SOON)).toBeNull();
      expect(await store().recordFailedAttempt(scope, 'two_factor', sha256Hex('x'), { maxAttempts: 3, now: SOON })).toBe(0);
    });

    it('revokes the open tokens of a user for the given purposes', async () => {
      const { scope, userId } = await seeded();
      const a = token(userId);
      const b = token(userId, { purpose: 'password_reset' });
      const c = token(userId, { purpose: 'oauth_exchange' });
      for (const t of [a, b, c]) await store().issue(scope, t);
      expect(await store().revokeForUser(scope, userId, ['magic_link', 'password_reset'], SOON)).toBe(2);
      expect(await store().consume(scope, 'magic_link', a.tokenHash, SOON)).toBeNull();
      expect(await store().consume(scope, 'password_reset', b.tokenHash, SOON)).toBeNull();
      expect(await store().consume(scope, 'oauth_exchange', c.tokenHash, SOON)).not.toBeNull();
    });

    it('stores tokens without a user', async () => {
      const { scope } = await seeded();
      const t = token(null, { purpose: 'webauthn_challenge', data: { challenge: 'abc' } });
      await store().issue(scope, t, { supersede: true });
      expect((await store().consume(scope, 'webauthn_challenge', t.tokenHash, SOON))?.data).toEqual({ challenge: 'abc' });
    });

    // Housekeeping is global: its tokens are from 2001, long before every other case's.
    it('deletes expired tokens of every tenant and purpose, consumed or not, up to the limit; live ones stay', async () => {
      const { scope, userId } = await seeded();
      const other = await seedScope(subject.ports);
      const sandbox = { ...scope, environment: 'sandbox' as const };
      const now = at('2001-02-01T00:00:00.000Z');
      const old = { createdAt: at('2001-01-01T00:00:00.000Z') };
      const consumedAt = at('2001-01-01T00:01:00.000Z');
      const expiredOpen = token(userId, { ...old, expiresAt: at('2001-01-01T00:15:00.000Z') });
      const expiredUsed = token(null, { ...old, purpose: 'webauthn_challenge', expiresAt: at('2001-01-01T00:05:00.000Z') });
      const expiringNow = token(userId, { ...old, purpose: 'two_factor', expiresAt: now });
      const live = token(userId, { ...old, purpose: 'password_reset', expiresAt: new Date(now.getTime() + 1) });
      const liveUsed = token(userId, { ...old, purpose: 'oauth_exchange', expiresAt: at('2001-06-01T00:00:00.000Z') });
      await store().issue(scope, expiredOpen);
      await store().issue(other, expiredUsed);
      await store().issue(sandbox, expiringNow);
      await store().issue(scope, live);
      await store().issue(scope, liveUsed);
      expect(await store().consume(other, 'webauthn_challenge', expiredUsed.tokenHash, consumedAt)).not.toBeNull();
      expect(await store().consume(scope, 'oauth_exchange', liveUsed.tokenHash, consumedAt)).not.toBeNull();

      expect(await store().deleteExpired(now, 2)).toBe(2);
      expect(await store().deleteExpired(now, 2)).toBe(1);
      expect(await store().deleteExpired(now, 2)).toBe(0);
      expect(await store().find(scope, 'magic_link', expiredOpen.tokenHash)).toBeNull();
      expect(await store().find(other, 'webauthn_challenge', expiredUsed.tokenHash)).toBeNull();
      expect(await store().find(sandbox, 'two_factor', expiringNow.tokenHash)).toBeNull();
      expect(await store().find(scope, 'password_reset', live.tokenHash)).toMatchObject({ consumedAt: null });
      expect(await store().find(scope, 'oauth_exchange', liveUsed.tokenHash)).toMatchObject({ consumedAt });
    });
  });
}
