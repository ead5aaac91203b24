import type { TenantScope } from '../domain/environment';
import { sha256Hex } from '../domain/secrets';
import type { NewSession } from '../ports/session-store';
import { at, newId, seedScope, seedUser, useStorage, type StorageFactory, type StoragePorts } from './storage-fixture';

const T0 = at('2026-01-01T00:00:00.000Z');
const LATER = at('2026-01-01T00:10:00.000Z');
const EXPIRY = at('2026-03-01T00:00:00.000Z');

/** Contract every SessionStore passes: the rotation primitive, revocation, tenant isolation. */
export function sessionStoreContract(label: string, factory: StorageFactory): void {
  describe(`SessionStore contract: ${label}`, () => {
    const ports = useStorage(factory);

    async function started(p: StoragePorts, scope?: TenantScope, overrides: Partial<NewSession> = {}) {
      const s = scope ?? (await seedScope(p));
      const user = await seedUser(p, s);
      const session: NewSession = {
        id: newId(),
        userId: user.id,
        rotationKey: newId(),
        createdAt: T0,
        refreshTokenHash: sha256Hex(newId()),
        refreshExpiresAt: EXPIRY,
        ...overrides,
      };
      await p.sessions.create(s, session);
      return { scope: s, user, session };
    }

    const rotation = (presentedHash: string, successorHash = sha256Hex(newId()), reuseGraceSeconds = 0) => ({
      presentedHash,
      successorHash,
      now: LATER,
      expiresAt: EXPIRY,
      reuseGraceSeconds,
    });
    const secondsAfter = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

    it('finds the first refresh token with its session', async () => {
      const { scope, user, session } = await started(ports());
      expect(await ports().sessions.findRefreshToken(scope, session.refreshTokenHash)).toEqual({
        tokenHash: session.refreshTokenHash,
        sessionId: session.id,
        userId: user.id,
        rotationKey: session.rotationKey,
        createdAt: T0,
        expiresAt: EXPIRY,
        usedAt: null,
        successorHash: null,
        sessionRevokedAt: null,
        sessionCreatedAt: T0,
      });
      expect(await ports().sessions.isActive(scope, session.id)).toBe(true);
    });

    it("lists a user's sessions newest first with their last use, and finds one only for its user", async () => {
      const { scope, user, session } = await started(ports());
      const client = { address: '203.0.113.7', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' };
      const later = { id: newId(), userId: user.id, rotationKey: newId(), createdAt: secondsAfter(T0, 60), refreshTokenHash: sha256Hex(newId()), refreshExpiresAt: EXPIRY, client };
      await ports().sessions.create(scope, later);
      expect(await ports().sessions.rotate(scope, rotation(session.refreshTokenHash))).toMatchObject({ status: 'rotated' });
      await ports().sessions.revoke(scope, later.id, LATER);
      const listed = await ports().sessions.listHistory(scope, user.id, { limit: 10 });
      expect(listed).toEqual([
        { id: later.id, createdAt: later.createdAt, lastUsedAt: later.createdAt, revokedAt: LATER, ...client },
        { id: session.id, createdAt: T0, lastUsedAt: LATER, revokedAt: null, address: null, userAgent: null },
      ]);
      expect(await ports().sessions.listHistory(scope, user.id, { limit: 1 })).toEqual([listed[0]]);
      expect(await ports().sessions.findInHistory(scope, user.id, session.id)).toEqual(listed[1]);
      const stranger = await seedUser(ports(), scope);
      expect(await ports().sessions.findInHistory(scope, stranger.id, session.id)).toBeNull();
      expect(await ports().sessions.listHistory(scope, stranger.id, { limit: 10 })).toEqual([]);
      expect(await ports().sessions.findInHistory({ ...scope, environment: 'sandbox' }, user.id, session.id)).toBeNull();
      expect(await ports().sessions.findInHistory(scope, user.id, 'not-an-id')).toBeNull();
    });

    it('reads a user with its session state as findById and isActive do', async () => {
      const sessions = ports().sessions;
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope);
      const sessionId = newId();
      const session = { id: sessionId, userId: user.id, rotationKey: newId(), createdAt: at('2026-01-01T00:00:00.000Z'), refreshTokenHash: newId(), refreshExpiresAt: at('2026-03-01T00:00:00.000Z') };
      await ports().sessions.create(scope, session);
      expect(await sessions.findLiveSession(scope, user.id, sessionId)).toEqual({ user, sessionActive: true });
      expect(await sessions.findLiveSession(scope, user.id, newId())).toEqual({ user, sessionActive: false });
      expect(await sessions.findLiveSession(scope, user.id, 'not-an-id')).toEqual({ user, sessionActive: false });
      expect(await sessions.findLiveSession(scope, newId(), sessionId)).toBeNull();
      expect(await sessions.findLiveSession({ ...scope, environment: 'sandbox' }, user.id, sessionId)).toBeNull();
      // Another user's live session is not live for this one.
      const other = await seedUser(ports(), scope);
      expect(await sessions.findLiveSession(scope, other.id, sessionId)).toEqual({ user: other, sessionActive: false });
      await ports().sessions.revoke(scope, sessionId, at('2026-01-02T00:00:00.000Z'));
      expect(await sessions.findLiveSession(scope, user.id, sessionId)).toEqual({ user, sessionActive: false });
    });

    it('reads a refresh token with its holder (what a refresh needs of them) as findRefreshToken and findById do', async () => {
      const sessions = ports().sessions;
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope);
      const tokenHash = newId();
      const sessionId = newId();
      const created = at('2026-01-01T00:00:00.000Z');
      await ports().sessions.create(scope, { id: sessionId, userId: user.id, rotationKey: newId(), createdAt: created, refreshTokenHash: tokenHash, refreshExpiresAt: at('2026-03-01T00:00:00.000Z') });
      const expected = async () => {
        const holder = (await ports().users.findById(scope, user.id))!;
        const token = (await sessions.findRefreshToken(scope, tokenHash))!;
        return {
          user: { id: holder.id, email: holder.email, role: holder.role, bannedAt: holder.bannedAt },
          token: { sessionId: token.sessionId, userId: token.userId, rotationKey: token.rotationKey, sessionRevokedAt: token.sessionRevokedAt, sessionCreatedAt: token.sessionCreatedAt },
        };
      };
      expect(await sessions.findRefreshTokenWithHolder(scope, tokenHash)).toEqual(await expected());
      expect((await sessions.findRefreshTokenWithHolder(scope, tokenHash))?.token.sessionCreatedAt).toEqual(created);
      // Used and revoked states come through as findRefreshToken reports them.
      await ports().sessions.rotate(scope, { presentedHash: tokenHash, successorHash: newId(), now: at('2026-01-02T00:00:00.000Z'), expiresAt: at('2026-03-02T00:00:00.000Z'), reuseGraceSeconds: 0 });
      await ports().sessions.revoke(scope, sessionId, at('2026-01-03T00:00:00.000Z'));
      const later = await sessions.findRefreshTokenWithHolder(scope, tokenHash);
      expect(later).toEqual(await expected());
      expect(later?.token.sessionRevokedAt).not.toBeNull();
      // A banned holder comes through as banned (the refresh refuses on it).
      await ports().users.setBanned(scope, user.id, at('2026-01-04T00:00:00.000Z'));
      expect((await sessions.findRefreshTokenWithHolder(scope, tokenHash))?.user.bannedAt).toEqual(at('2026-01-04T00:00:00.000Z'));
      expect(await sessions.findRefreshTokenWithHolder(scope, newId())).toBeNull();
      expect(await sessions.findRefreshTokenWithHolder({ ...scope, environment: 'sandbox' }, tokenHash)).toBeNull();
    });

    it('rotates once, then reports reuse, and the successor rotates on', async () => {
      const { scope, session } = await started(ports());
      const successor = sha256Hex(newId());
      expect(await ports().sessions.rotate(scope, rotation(session.refreshTokenHash, successor))).toEqual({ status: 'rotated' });
      const used = await ports().sessions.findRefreshToken(scope, session.refreshTokenHash);
      expect(used?.usedAt).toEqual(LATER);
      expect(used?.successorHash).toBe(successor);
      expect(await ports().sessions.rotate(scope, rotation(session.refreshTokenHash))).toEqual({ status: 'reused' });
      const next = await ports().sessions.findRefreshToken(scope, successor);
      // A successor belongs to the same session: the session's start stays the sign-in's.
      expect(next).toMatchObject({ sessionId: session.id, usedAt: null, createdAt: LATER, expiresAt: EXPIRY, sessionCreatedAt: T0 });
      expect(await ports().sessions.rotate(scope, rotation(successor))).toEqual({ status: 'rotated' });
    });

    it('of many concurrent rotations of one token, exactly one wins', async () => {
      const { scope, session } = await started(ports());
      const results = await Promise.all(Array.from({ length: 10 }, () => ports().sessions.rotate(scope, rotation(session.refreshTokenHash))));
      expect(results.filter((r) => r.status === 'rotated')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'reused')).toHaveLength(9);
    });

    it('inside the grace window, every concurrent racer gets the same successor: one rotated, the rest reissued', async () => {
      const { scope, session } = await started(ports());
      const successor = sha256Hex(newId());
      const results = await Promise.all(Array.from({ length: 10 }, () => ports().sessions.rotate(scope, rotation(session.refreshTokenHash, successor, 10))));
      expect(results.filter((r) => r.status === 'rotated')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'reissued')).toHaveLength(9);
      expect(await ports().sessions.findRefreshToken(scope, successor)).toMatchObject({ sessionId: session.id, usedAt: null, sessionRevokedAt: null });
      expect(await ports().sessions.isActive(scope, session.id)).toBe(true);
      expect(await ports().sessions.rotate(scope, rotation(successor, undefined, 10))).toEqual({ status: 'rotated' });
    });

    it('a reuse outside the window, for another successor, after the successor was used or of a revoked session is a replay', async () => {
      const { scope, session } = await started(ports());
      const successor = sha256Hex(newId());
      const again = (overrides: Partial<ReturnType<typeof rotation>>) => ports().sessions.rotate(scope, { ...rotation(session.refreshTokenHash, successor, 10), ...overrides });
      expect(await again({})).toEqual({ status: 'rotated' });
      expect(await again({ now: secondsAfter(LATER, 10) })).toEqual({ status: 'reissued', successorHash: successor });
      expect(await again({ now: secondsAfter(LATER, 11) })).toEqual({ status: 'reused' });
      expect(await again({ reuseGraceSeconds: 0 })).toEqual({ status: 'reused' });
      expect(await again({ successorHash: sha256Hex(newId()) })).toEqual({ status: 'reused' });
      expect(await ports().sessions.rotate(scope, rotation(successor))).toEqual({ status: 'rotated' });
      expect(await again({ now: secondsAfter(LATER, 1) })).toEqual({ status: 'reused' });

      const other = await started(ports());
      const next = sha256Hex(newId());
      expect(await ports().sessions.rotate(other.scope, rotation(other.session.refreshTokenHash, next, 10))).toEqual({ status: 'rotated' });
      await ports().sessions.revoke(other.scope, other.session.id, LATER);
      expect(await ports().sessions.rotate(other.scope, rotation(other.session.refreshTokenHash, next, 10))).toEqual({ status: 'reused' });
    });

    it('answers unknown for unknown, expired and other-scope tokens', async () => {
      const { scope, session } = await started(ports());
      expect(await ports().sessions.rotate(scope, rotation(sha256Hex('nope')))).toEqual({ status: 'unknown' });
      const expired = { ...rotation(session.refreshTokenHash), now: at('2026-03-01T00:00:00.001Z') };
      expect(await ports().sessions.rotate(scope, expired)).toEqual({ status: 'unknown' });
      const sandbox = { ...scope, environment: 'sandbox' as const };
      const other = await seedScope(ports());
      for (const foreign of [sandbox, other]) {
        expect(await ports().sessions.rotate(foreign, rotation(session.refreshTokenHash))).toEqual({ status: 'unknown' });
        expect(await ports().sessions.findRefreshToken(foreign, session.refreshTokenHash)).toBeNull();
        expect(await ports().sessions.isActive(foreign, session.id)).toBe(false);
        expect(await ports().sessions.revoke(foreign, session.id, LATER)).toBe(false);
        expect(await ports().sessions.revokeAllForUser(foreign, session.userId, LATER)).toBe(0);
      }
      expect(await ports().sessions.isActive(scope, session.id)).toBe(true);
    });

    it('a revoked session rotates no more (reported as reuse)', async () => {
      const { scope, session } = await started(ports());
      expect(await ports().sessions.revoke(scope, session.id, LATER)).toBe(true);
      expect(await ports().sessions.revoke(scope, session.id, EXPIRY)).toBe(true);
      expect(await ports().sessions.isActive(scope, session.id)).toBe(false);
      expect(await ports().sessions.rotate(scope, rotation(session.refreshTokenHash))).toEqual({ status: 'reused' });
      const record = await ports().sessions.findRefreshToken(scope, session.refreshTokenHash);
      expect(record?.sessionRevokedAt).toEqual(LATER);
    });

    it('revokes every session of one user only', async () => {
      const { scope, user, session } = await started(ports());
      const second = { ...session, id: newId(), refreshTokenHash: sha256Hex(newId()) };
      await ports().sessions.create(scope, second);
      const bystander = await started(ports(), scope);
      expect(await ports().sessions.revokeAllForUser(scope, user.id, LATER)).toBe(2);
      expect(await ports().sessions.revokeAllForUser(scope, user.id, LATER)).toBe(0);
      expect(await ports().sessions.isActive(scope, session.id)).toBe(false);
      expect(await ports().sessions.isActive(scope, second.id)).toBe(false);
      expect(await ports().sessions.isActive(scope, bystander.session.id)).toBe(true);
    });

    it('answers false for unknown session ids', async () => {
      const scope = await seedScope(ports());
      expect(await ports().sessions.isActive(scope, newId())).toBe(false);
      expect(await ports().sessions.revoke(scope, newId(), LATER)).toBe(false);
    });

    // Housekeeping is global: its sessions live in 2001, long before every other case's.
    describe('housekeeping', () => {
      const OLD = at('2001-01-01T00:00:00.000Z');
      const ROTATED = at('2001-01-01T00:10:00.000Z');
      const GONE = at('2001-01-02T00:00:00.000Z');
      const NOW = at('2001-02-01T00:00:00.000Z');
      const LIVE = at('2001-06-01T00:00:00.000Z');
      /** A session of 2001 in its own tenant unless given one, its first token expiring at `expiry`. */
      const old2001 = (expiry: Date, scope?: TenantScope) => started(ports(), scope, { createdAt: OLD, refreshExpiresAt: expiry });
      const rotate2001 = async (scope: TenantScope, presentedHash: string, expiresAt: Date) => {
        const successorHash = sha256Hex(newId());
        expect(await ports().sessions.rotate(scope, { presentedHash, successorHash, now: ROTATED, expiresAt, reuseGraceSeconds: 0 })).toEqual({ status: 'rotated' });
        return successorHash;
      };

      it('deletes expired refresh tokens, used or not, and the sessions left without an unexpired one', async () => {
        const dead = await old2001(GONE);
        const deadRotated = await old2001(GONE);
        await rotate2001(deadRotated.scope, deadRotated.session.refreshTokenHash, GONE);
        const sandbox = { ...dead.scope, environment: 'sandbox' as const };
        const alive = await old2001(GONE, sandbox);
        const aliveHead = await rotate2001(sandbox, alive.session.refreshTokenHash, LIVE);
        const usedUnexpired = await old2001(LIVE);
        const usedHead = await rotate2001(usedUnexpired.scope, usedUnexpired.session.refreshTokenHash, LIVE);

        expect(await ports().sessions.deleteExpired(NOW, 100)).toEqual({ refreshTokens: 4, sessions: 2 });
        expect(await ports().sessions.deleteExpired(NOW, 100)).toEqual({ refreshTokens: 0, sessions: 0 });
        for (const { scope, session } of [dead, deadRotated]) {
          expect(await ports().sessions.findRefreshToken(scope, session.refreshTokenHash)).toBeNull();
          expect(await ports().sessions.isActive(scope, session.id)).toBe(false);
        }
        expect(await ports().sessions.findRefreshToken(sandbox, alive.session.refreshTokenHash)).toBeNull();
        expect(await ports().sessions.findRefreshToken(sandbox, aliveHead)).toMatchObject({ usedAt: null, expiresAt: LIVE });
        expect(await ports().sessions.isActive(sandbox, alive.session.id)).toBe(true);
        // A used but unexpired token stays, so presenting it again is still detected as a replay.
        const { scope, session } = usedUnexpired;
        expect(await ports().sessions.findRefreshToken(scope, session.refreshTokenHash)).toMatchObject({ usedAt: ROTATED, successorHash: usedHead });
        expect(await ports().sessions.rotate(scope, rotation(session.refreshTokenHash))).toEqual({ status: 'reused' });
      });

      it('deleteExpired respects the limit and answers the counts', async () => {
        const sessions = [await old2001(GONE), await old2001(GONE), await old2001(NOW)];
        expect(await ports().sessions.deleteExpired(NOW, 2)).toEqual({ refreshTokens: 2, sessions: 2 });
        expect(await ports().sessions.deleteExpired(NOW, 2)).toEqual({ refreshTokens: 1, sessions: 1 });
        expect(await ports().sessions.deleteExpired(NOW, 2)).toEqual({ refreshTokens: 0, sessions: 0 });
        for (const { scope, session } of sessions) expect(await ports().sessions.isActive(scope, session.id)).toBe(false);
      });

      it('deletes sessions revoked by the cutoff with their tokens, across tenants, up to the limit', async () => {
        const first = await old2001(LIVE);
        const second = await old2001(LIVE, { ...first.scope, environment: 'sandbox' });
        const later = await old2001(LIVE);
        const live = await old2001(LIVE, first.scope);
        await ports().sessions.revoke(first.scope, first.session.id, ROTATED);
        await ports().sessions.revoke(second.scope, second.session.id, GONE);
        await ports().sessions.revoke(later.scope, later.session.id, LIVE);

        expect(await ports().sessions.deleteRevoked(NOW, 1)).toBe(1);
        expect(await ports().sessions.deleteRevoked(NOW, 5)).toBe(1);
        expect(await ports().sessions.deleteRevoked(NOW, 5)).toBe(0);
        for (const { scope, session } of [first, second]) {
          expect(await ports().sessions.findRefreshToken(scope, session.refreshTokenHash)).toBeNull();
        }
        expect(await ports().sessions.findRefreshToken(later.scope, later.session.refreshTokenHash)).toMatchObject({ sessionRevokedAt: LIVE });
        expect(await ports().sessions.isActive(live.scope, live.session.id)).toBe(true);
      });
    });
  });
}
