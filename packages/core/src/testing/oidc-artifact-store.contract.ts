import type { NewOidcArtifact } from '../ports/oidc-artifact-store';
import { useOidcStorage, type OidcStorageFactory } from './oidc-client-store.contract';
import { at, newId, seedScope } from './storage-fixture';

const T0 = at('2026-01-01T00:00:00.000Z');
const LATER = at('2026-01-01T00:10:00.000Z');
const EXPIRY = at('2026-01-01T01:00:00.000Z');

function artifact(overrides: Partial<NewOidcArtifact> = {}): NewOidcArtifact {
  const id = newId();
  return {
    model: 'AuthorizationCode',
    id,
    payload: { jti: id, kind: 'AuthorizationCode', scope: 'openid email', nested: { list: [1, 'two', true, null] }, name: 'Zoë ✓' },
    grantId: newId(),
    uid: null,
    userCode: null,
    expiresAt: EXPIRY,
    ...overrides,
  };
}

/**
 * Contract every OidcArtifactStore passes: round trip, replace semantics, expiry, single-use
 * consume under concurrency, grant revocation, housekeeping, and project isolation.
 */
export function oidcArtifactStoreContract(label: string, factory: OidcStorageFactory): void {
  describe(`OidcArtifactStore contract: ${label}`, () => {
    const subject = useOidcStorage(factory);
    const store = () => subject().oidcArtifacts;
    const project = async () => (await seedScope(subject().ports)).projectId;

    it('finds an artifact by project, model and id only', async () => {
      const projectId = await project();
      const other = await project();
      const code = artifact();
      await store().upsert(projectId, code);
      expect(await store().find(projectId, 'AuthorizationCode', code.id, T0)).toEqual({ ...code, consumedAt: null });
      expect(await store().find(other, 'AuthorizationCode', code.id, T0)).toBeNull();
      expect(await store().find(projectId, 'AccessToken', code.id, T0)).toBeNull();
    });

    it('replaces payload, indexes and expiry on upsert, keeping consumedAt', async () => {
      const projectId = await project();
      const code = artifact();
      await store().upsert(projectId, code);
      expect(await store().consume(projectId, code.model, code.id, LATER)).toBe(true);
      const replaced = { ...code, payload: { jti: code.id, changed: true }, grantId: null, expiresAt: null };
      await store().upsert(projectId, replaced);
      expect(await store().find(projectId, code.model, code.id, T0)).toEqual({ ...replaced, consumedAt: LATER });
    });

    it('treats expired artifacts as gone; those without expiry live on', async () => {
      const projectId = await project();
      const code = artifact();
      const grant = artifact({ model: 'Grant', grantId: null, expiresAt: null });
      await store().upsert(projectId, code);
      await store().upsert(projectId, grant);
      expect(await store().find(projectId, code.model, code.id, EXPIRY)).toBeNull();
      expect(await store().find(projectId, 'Grant', grant.id, at('2099-01-01T00:00:00.000Z'))).not.toBeNull();
    });

    it('finds sessions by uid and device codes by user code, live and in the project only', async () => {
      const projectId = await project();
      const other = await project();
      const session = artifact({ model: 'Session', uid: newId(), grantId: null });
      const device = artifact({ model: 'DeviceCode', userCode: 'ABCD-EFGH' });
      await store().upsert(projectId, session);
      await store().upsert(projectId, device);
      expect((await store().findByUid(projectId, 'Session', session.uid!, T0))?.id).toBe(session.id);
      expect((await store().findByUserCode(projectId, 'DeviceCode', 'ABCD-EFGH', T0))?.id).toBe(device.id);
      expect(await store().findByUid(other, 'Session', session.uid!, T0)).toBeNull();
      expect(await store().findByUserCode(other, 'DeviceCode', 'ABCD-EFGH', T0)).toBeNull();
      expect(await store().findByUid(projectId, 'Interaction', session.uid!, T0)).toBeNull();
      expect(await store().findByUid(projectId, 'Session', session.uid!, EXPIRY)).toBeNull();
    });

    it('consumes once; of many concurrent consumes exactly one wins', async () => {
      const projectId = await project();
      const other = await project();
      const code = artifact();
      await store().upsert(projectId, code);
      expect(await store().consume(other, code.model, code.id, LATER)).toBe(false);
      const results = await Promise.all(Array.from({ length: 10 }, () => store().consume(projectId, code.model, code.id, LATER)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await store().find(projectId, code.model, code.id, T0))?.consumedAt).toEqual(LATER);
      expect(await store().consume(projectId, code.model, newId(), LATER)).toBe(false);
    });

    it('destroys idempotently', async () => {
      const projectId = await project();
      const code = artifact();
      await store().upsert(projectId, code);
      await store().destroy(projectId, code.model, code.id);
      await store().destroy(projectId, code.model, code.id);
      expect(await store().find(projectId, code.model, code.id, T0)).toBeNull();
    });

    it("revokes a grant's artifacts of one model, in the project only", async () => {
      const projectId = await project();
      const other = await project();
      const grantId = newId();
      const tokens = [artifact({ model: 'AccessToken', grantId }), artifact({ model: 'AccessToken', grantId })];
      const refresh = artifact({ model: 'RefreshToken', grantId });
      const unrelated = artifact({ model: 'AccessToken' });
      const foreign = artifact({ model: 'AccessToken', grantId });
      for (const a of [...tokens, refresh, unrelated]) await store().upsert(projectId, a);
      await store().upsert(other, foreign);
      expect(await store().revokeByGrantId(projectId, 'AccessToken', grantId)).toBe(2);
      for (const a of tokens) expect(await store().find(projectId, a.model, a.id, T0)).toBeNull();
      expect(await store().find(projectId, 'RefreshToken', refresh.id, T0)).not.toBeNull();
      expect(await store().find(projectId, 'AccessToken', unrelated.id, T0)).not.toBeNull();
      expect(await store().find(other, 'AccessToken', foreign.id, T0)).not.toBeNull();
    });

    it('deletes expired artifacts of every project, at most `limit` per call', async () => {
      const projectId = await project();
      const expired = [artifact({ expiresAt: at('2000-01-01T00:00:00.000Z') }), artifact({ expiresAt: at('2000-01-02T00:00:00.000Z') })];
      const live = artifact({ expiresAt: at('2099-01-01T00:00:00.000Z') });
      const forever = artifact({ model: 'Grant', expiresAt: null });
      for (const a of [...expired, live, forever]) await store().upsert(projectId, a);
      const now = at('2001-01-01T00:00:00.000Z');
      let deleted = 0;
      for (let round = 0; round < 100; round += 1) {
        const n = await store().deleteExpired(now, 1);
        expect(n).toBeLessThanOrEqual(1);
        if (n === 0) break;
        deleted += n;
      }
      expect(deleted).toBe(2);
      expect(await store().find(projectId, live.model, live.id, now)).not.toBeNull();
      expect(await store().find(projectId, 'Grant', forever.id, now)).not.toBeNull();
    });
  });
}
