import type { TenantScope } from '../domain/environment';
import type { OAuthIdentity, OAuthProviderConfig } from '../domain/oauth';
import type { IdentityRepository } from '../ports/identity-repository';
import type { OAuthProviderStore } from '../ports/oauth-provider-store';
import { at, newId, seedScope, seedUser, type StoragePorts } from './storage-fixture';

export type OAuthStorageFactory = () => Promise<{
  ports: StoragePorts;
  oauthProviders: OAuthProviderStore;
  identities: IdentityRepository;
  close(): Promise<void>;
}>;

const T0 = at('2026-01-01T00:00:00.000Z');
const T1 = at('2026-01-02T00:00:00.000Z');

export function providerConfigFixture(overrides: Partial<OAuthProviderConfig> = {}): OAuthProviderConfig {
  return {
    provider: 'github',
    enabled: true,
    clientId: 'client-1',
    sealedClientSecret: 'sealed-secret',
    scopes: ['read:user', 'user:email'],
    redirectUrl: 'https://app.example.test/cb',
    issuer: null,
    authorizationUrl: 'http://127.0.0.1:9/authorize',
    tokenUrl: null,
    userInfoUrl: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

/** Contract of OAuthProviderStore and IdentityRepository: replace semantics, uniqueness, tenant isolation. */
export function oauthStorageContract(label: string, factory: OAuthStorageFactory): void {
  describe(`OAuth storage contract: ${label}`, () => {
    let subject: Awaited<ReturnType<OAuthStorageFactory>>;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(async () => {
      await subject?.close();
    });
    const providers = () => subject.oauthProviders;
    const identities = () => subject.identities;
    const foreignScopes = async (scope: TenantScope): Promise<TenantScope[]> => [
      { ...scope, environment: scope.environment === 'production' ? 'sandbox' : 'production' },
      await seedScope(subject.ports),
    ];

    it('saves, replaces (keeping createdAt), lists and removes provider settings', async () => {
      const scope = await seedScope(subject.ports);
      expect(await providers().find(scope, 'github')).toBeNull();
      const first = providerConfigFixture();
      await providers().save(scope, first);
      expect(await providers().find(scope, 'github')).toEqual(first);
      const replaced = providerConfigFixture({ enabled: false, clientId: 'client-2', scopes: [], redirectUrl: null, authorizationUrl: null, createdAt: T1, updatedAt: T1 });
      await providers().save(scope, replaced);
      expect(await providers().find(scope, 'github')).toEqual({ ...replaced, createdAt: T0 });
      const oidc = providerConfigFixture({ provider: 'oidc', issuer: 'https://idp.example.test/realm', scopes: ['openid', 'email'] });
      await providers().save(scope, oidc);
      expect((await providers().list(scope)).map((c) => c.provider)).toEqual(['github', 'oidc']);
      expect(await providers().remove(scope, 'github')).toBe(true);
      expect(await providers().remove(scope, 'github')).toBe(false);
      expect(await providers().list(scope)).toEqual([oidc]);
    });

    it('keeps provider settings apart per project and environment', async () => {
      const scope = await seedScope(subject.ports);
      await providers().save(scope, providerConfigFixture({ clientId: 'mine' }));
      for (const foreign of await foreignScopes(scope)) {
        expect(await providers().find(foreign, 'github')).toBeNull();
        expect(await providers().list(foreign)).toEqual([]);
        expect(await providers().remove(foreign, 'github')).toBe(false);
        await providers().save(foreign, providerConfigFixture({ clientId: 'theirs' }));
      }
      expect((await providers().find(scope, 'github'))?.clientId).toBe('mine');
    });

    const identity = (userId: string, overrides: Partial<OAuthIdentity> = {}): OAuthIdentity => ({
      provider: 'github',
      subject: `gh-${newId()}`,
      userId,
      email: 'ada@example.test',
      createdAt: T0,
      ...overrides,
    });

    it('links an identity once, to one user, and finds and lists it', async () => {
      const scope = await seedScope(subject.ports);
      const [ada, bob] = [await seedUser(subject.ports, scope), await seedUser(subject.ports, scope)];
      const github = identity(ada.id, { subject: '1001' });
      expect(await identities().link(scope, github)).toBe('created');
      expect(await identities().link(scope, { ...github, userId: bob.id })).toBe('exists');
      expect(await identities().link(scope, { ...github, subject: '1002', email: null })).toBe('created');
      await identities().link(scope, identity(ada.id, { provider: 'discord', subject: '1001' }));
      expect(await identities().find(scope, 'github', '1001')).toEqual(github);
      expect(await identities().find(scope, 'google', '1001')).toBeNull();
      expect((await identities().listForUser(scope, ada.id)).map((i) => `${i.provider}:${i.subject}`)).toEqual(['discord:1001', 'github:1001', 'github:1002']);
      expect(await identities().listForUser(scope, bob.id)).toEqual([]);
    });

    it('of concurrent links of one identity exactly one is created', async () => {
      const scope = await seedScope(subject.ports);
      const users = await Promise.all(Array.from({ length: 5 }, () => seedUser(subject.ports, scope)));
      const shared = identity(users[0].id);
      const results = await Promise.all(users.map((u) => identities().link(scope, { ...shared, userId: u.id })));
      expect(results.filter((r) => r === 'created')).toHaveLength(1);
    });

    it('keeps identities apart per project and environment, and unlinks in its own scope only', async () => {
      const scope = await seedScope(subject.ports);
      const user = await seedUser(subject.ports, scope);
      const mine = identity(user.id);
      await identities().link(scope, mine);
      for (const foreign of await foreignScopes(scope)) {
        expect(await identities().find(foreign, mine.provider, mine.subject)).toBeNull();
        expect(await identities().listForUser(foreign, user.id)).toEqual([]);
        expect(await identities().unlink(foreign, mine.provider, mine.subject)).toBe(false);
        const other = await seedUser(subject.ports, foreign);
        expect(await identities().link(foreign, { ...mine, userId: other.id })).toBe('created');
      }
      expect(await identities().unlink(scope, mine.provider, mine.subject)).toBe(true);
      expect(await identities().unlink(scope, mine.provider, mine.subject)).toBe(false);
      expect(await identities().find(scope, mine.provider, mine.subject)).toBeNull();
    });
  });
}
