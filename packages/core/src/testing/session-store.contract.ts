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

    async function started(p: StoragePorts, scope?: TenantScope) {
      const s = scope ?? (await seedScope(p));
      const user = await seedUser(p, s);
      const session: NewSession = {
        id: newId(),
        userId: user.id,
        rotationKey: newId(),
        createdAt: T0,
        refreshTokenHash: sha256Hex(newId()),
        refreshExpiresAt: EXPIRY,
      };
      await p.sessions.create(s, session);
      return { scope: s, user, session };
    }

    const rotation = (presentedHash: string, successorHash = sha256Hex(newId())) => ({
      presentedHash,
      successorHash,
      now: LATER,
      expiresAt: EXPIRY,
    });

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
      });
      expect(await ports().sessions.isActive(scope, session.id)).toBe(true);
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
      expect(next).toMatchObject({ sessionId: session.id, usedAt: null, createdAt: LATER, expiresAt: EXPIRY });
      expect(await ports().sessions.rotate(scope, rotation(successor))).toEqual({ status: 'rotated' });
    });

    it('of many concurrent rotations of one token, exactly one wins', async () => {
      const { scope, session } = await started(ports());
      const results = await Promise.all(
        Array.from({ length: 10 }, () => ports().sessions.rotate(scope, rotation(session.refreshTokenHash))),
      );
      expect(results.filter((r) => r.status === 'rotated')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'reused')).toHaveLength(9);
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
  });
}
