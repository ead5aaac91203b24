import type { OidcClient } from '../domain/oidc';
import type { OidcArtifactStore } from '../ports/oidc-artifact-store';
import type { OidcClientStore } from '../ports/oidc-client-store';
import { at, newId, seedScope, type StoragePorts } from './storage-fixture';

/** Opens the storage for the OIDC contract suites (clients and artifacts share it). */
export type OidcStorageFactory = () => Promise<{
  ports: StoragePorts;
  oidcClients: OidcClientStore;
  oidcArtifacts: OidcArtifactStore;
  close(): Promise<void>;
}>;

/** Opens the factory once per describe block; the returned function reads the open subject. */
export function useOidcStorage(factory: OidcStorageFactory): () => Awaited<ReturnType<OidcStorageFactory>> {
  let subject: Awaited<ReturnType<OidcStorageFactory>> | undefined;
  beforeAll(async () => {
    subject = await factory();
  });
  afterAll(async () => {
    await subject?.close();
  });
  return () => {
    if (!subject) throw new Error('storage not opened');
    return subject;
  };
}

export function oidcClientFixture(projectId: string, overrides: Partial<OidcClient> = {}): OidcClient {
  return {
    clientId: newId(),
    projectId,
    environment: 'production',
    name: 'Contract app',
    redirectUris: ['https://app.example.test/callback', 'http://localhost:3000/cb'],
    postLogoutRedirectUris: ['https://app.example.test/bye'],
    public: false,
    secretHash: 'a'.repeat(64),
    createdAt: at('2026-01-01T00:00:00.000Z'),
    ...overrides,
  };
}

/** Contract every OidcClientStore passes: round trip, listing order, removal, project isolation. */
export function oidcClientStoreContract(label: string, factory: OidcStorageFactory): void {
  describe(`OidcClientStore contract: ${label}`, () => {
    const subject = useOidcStorage(factory);
    const store = () => subject().oidcClients;

    it('finds a client by project and id, in either environment, and never in another project', async () => {
      const scope = await seedScope(subject().ports);
      const other = await seedScope(subject().ports);
      const confidential = oidcClientFixture(scope.projectId);
      const sandboxPublic = oidcClientFixture(scope.projectId, { environment: 'sandbox', public: true, secretHash: null, postLogoutRedirectUris: [] });
      await store().create(scope, confidential);
      await store().create({ ...scope, environment: 'sandbox' }, sandboxPublic);
      expect(await store().find(scope.projectId, confidential.clientId)).toEqual(confidential);
      expect(await store().find(scope.projectId, sandboxPublic.clientId)).toEqual(sandboxPublic);
      expect(await store().find(other.projectId, confidential.clientId)).toBeNull();
      expect(await store().find(scope.projectId, newId())).toBeNull();
    });

    it("lists a project's clients oldest first, optionally one environment only", async () => {
      const scope = await seedScope(subject().ports);
      const other = await seedScope(subject().ports);
      const second = oidcClientFixture(scope.projectId, { createdAt: at('2026-01-02T00:00:00.000Z') });
      const first = oidcClientFixture(scope.projectId, { environment: 'sandbox' });
      await store().create(scope, second);
      await store().create({ ...scope, environment: 'sandbox' }, first);
      await store().create(other, oidcClientFixture(other.projectId));
      expect(await store().listForProject(scope.projectId)).toEqual([first, second]);
      expect(await store().listForProject(scope.projectId, 'production')).toEqual([second]);
      expect(await store().listForProject(scope.projectId, 'sandbox')).toEqual([first]);
    });

    it('removes once, only within the owning project', async () => {
      const scope = await seedScope(subject().ports);
      const other = await seedScope(subject().ports);
      const client = oidcClientFixture(scope.projectId);
      await store().create(scope, client);
      expect(await store().remove(other.projectId, client.clientId)).toBe(false);
      expect(await store().remove(scope.projectId, client.clientId)).toBe(true);
      expect(await store().remove(scope.projectId, client.clientId)).toBe(false);
      expect(await store().find(scope.projectId, client.clientId)).toBeNull();
    });

    it('refuses a second client with the same id', async () => {
      const scope = await seedScope(subject().ports);
      const client = oidcClientFixture(scope.projectId);
      await store().create(scope, client);
      await expect(store().create(scope, { ...client, name: 'Other' })).rejects.toThrow();
    });
  });
}
