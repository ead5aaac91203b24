import type { TenantScope } from '../domain/environment';
import { sha256Hex } from '../domain/secrets';
import type { NewSession } from '../ports/session-store';
import { at, newId, seedScope, seedUser, useStorage, type StorageFactory, type StoragePorts } from './storage-fixture';

const T0 = at('2026-01-01T00:00:00.000Z');
const T1 = at('2026-01-01T00:05:00.000Z');
const T2 = at('2026-01-01T00:10:00.000Z');
const EXPIRY = at('2026-03-01T00:00:00.000Z');

/**
 * Contract of the SessionStore's device-list side: what a session records of its client, its
 * reauthentication time, listing a user's usable sessions, and revoking all but one.
 */
export function sessionDevicesContract(label: string, factory: StorageFactory): void {
  describe(`SessionStore devices contract: ${label}`, () => {
    const ports = useStorage(factory);

    async function start(p: StoragePorts, scope: TenantScope, userId: string, overrides: Partial<NewSession> = {}): Promise<NewSession> {
      const session: NewSession = {
        id: newId(),
        userId,
        rotationKey: newId(),
        createdAt: T0,
        refreshTokenHash: sha256Hex(newId()),
        refreshExpiresAt: EXPIRY,
        ...overrides,
      };
      await p.sessions.create(scope, session);
      return session;
    }

    it('records the client and starts with the sign-in as the last authentication and use', async () => {
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope);
      const client = { address: '203.0.113.9', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' };
      const session = await start(ports(), scope, user.id, { client });
      const bare = await start(ports(), scope, user.id);
      expect(await ports().sessions.findSession(scope, session.id)).toEqual({
        id: session.id,
        userId: user.id,
        createdAt: T0,
        authenticatedAt: T0,
        lastUsedAt: T0,
        ...client,
      });
      expect(await ports().sessions.findSession(scope, bare.id)).toMatchObject({ address: null, userAgent: null });
      expect(await ports().sessions.findSession({ ...scope, environment: 'sandbox' }, session.id)).toBeNull();
      expect(await ports().sessions.findSession(scope, newId())).toBeNull();
      expect(await ports().sessions.findSession(scope, 'not-an-id')).toBeNull();
    });

    it('moves authenticatedAt on a live session only, and lastUsedAt with each refresh', async () => {
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope);
      const session = await start(ports(), scope, user.id);
      await ports().sessions.recordAuthentication(scope, session.id, T1);
      await ports().sessions.recordAuthentication({ ...scope, environment: 'sandbox' }, session.id, T2);
      const rotated = await ports().sessions.rotate(scope, {
        presentedHash: session.refreshTokenHash,
        successorHash: sha256Hex(newId()),
        now: T2,
        expiresAt: EXPIRY,
        reuseGraceSeconds: 0,
      });
      expect(rotated.status).toBe('rotated');
      expect(await ports().sessions.findSession(scope, session.id)).toMatchObject({ authenticatedAt: T1, lastUsedAt: T2 });
      await ports().sessions.revoke(scope, session.id, T2);
      await ports().sessions.recordAuthentication(scope, session.id, T2);
      expect(await ports().sessions.findSession(scope, session.id)).toBeNull();
    });

    it("lists the user's usable sessions only, most recently used first", async () => {
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope);
      const other = await seedUser(ports(), scope);
      const older = await start(ports(), scope, user.id);
      const newer = await start(ports(), scope, user.id, { createdAt: T1 });
      const revoked = await start(ports(), scope, user.id);
      await start(ports(), scope, user.id, { refreshExpiresAt: T1 }); // cannot be refreshed at T2
      await start(ports(), scope, other.id);
      await ports().sessions.revoke(scope, revoked.id, T1);
      const listed = await ports().sessions.listForUser(scope, user.id, T2);
      expect(listed.map((s) => s.id)).toEqual([newer.id, older.id]);
      expect(await ports().sessions.listForUser({ ...scope, environment: 'sandbox' }, user.id, T2)).toEqual([]);
      expect(await ports().sessions.listForUser(scope, 'not-an-id', T2)).toEqual([]);
    });

    it('revokes every session of the user but the one kept, in its tenant only', async () => {
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope);
      const kept = await start(ports(), scope, user.id);
      const a = await start(ports(), scope, user.id);
      const b = await start(ports(), scope, user.id);
      const otherProject = await seedScope(ports());
      const elsewhere = await start(ports(), otherProject, (await seedUser(ports(), otherProject)).id);
      expect(await ports().sessions.revokeAllForUser(scope, user.id, T1, { except: kept.id })).toBe(2);
      expect(await ports().sessions.isActive(scope, kept.id)).toBe(true);
      expect(await ports().sessions.isActive(scope, a.id)).toBe(false);
      expect(await ports().sessions.isActive(scope, b.id)).toBe(false);
      expect(await ports().sessions.revokeAllForUser(otherProject, user.id, T1)).toBe(0);
      expect(await ports().sessions.isActive(otherProject, elsewhere.id)).toBe(true);
      expect(await ports().sessions.revokeAllForUser(scope, user.id, T2, { except: 'not-an-id' })).toBe(1);
      expect(await ports().sessions.isActive(scope, kept.id)).toBe(false);
    });
  });
}
