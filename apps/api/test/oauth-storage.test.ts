import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import { openStorage, type TypeormStorage } from '@svc/adapters-typeorm';
import { createTestSchema, describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { createApp } from '../src/http/app';
import { loadConfig } from '../src/composition/config';
import { buildContainer, storageOptionsOf, type Container } from '../src/composition/container';
import { resolveSecrets, type ResolvedSecrets } from '../src/composition/dev-secrets';
import { createLogger } from '../src/composition/logger';
import { ADA_OIDC, APP_URL, browserSignIn, CLIENT, exchange, providerSettings, startProviders, type Providers } from './oauth-helpers';

// The real composition (container.ts): TypeORM storage, the master-key SecretBox, the HTTP OAuth
// client, on SQLite and on PostgreSQL, against the loopback identity providers.

let providers: Providers;
beforeAll(async () => {
  providers = await startProviders();
});
afterAll(() => providers.stop());

const silent = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });

function composedSuite(label: string, env: () => Promise<{ env: Record<string, string>; cleanup(): Promise<void> }>): void {
  describe(`social sign-in over the real composition: ${label}`, () => {
    let dir: string;
    let secrets: ResolvedSecrets;
    let container: Container;
    /** The same database, read beside the service (which offers no raw ports). */
    let storage: TypeormStorage;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'svc-oauth-'));
      const extra = await env();
      cleanup = extra.cleanup;
      secrets = await resolveSecrets(loadConfig({ SVC_DATA_DIR: dir, SVC_BCRYPT_COST: '4', SVC_BASE_URL: 'http://svc.test', ...extra.env }));
      container = await buildContainer(secrets.config);
      storage = await openStorage({ ...storageOptionsOf(secrets.config), migrationsRun: false });
    }, 30_000);
    afterAll(async () => {
      await storage?.close();
      await container?.close();
      await cleanup?.();
      await rm(dir, { recursive: true, force: true });
    });

    it('configures providers with sealed secrets and signs in through every one of them', async () => {
      const app = createApp({ ...container, logger: silent, config: secrets.config });
      const auth = { Authorization: `Bearer ${secrets.config.adminToken}` };
      const created = await request(app)
        .post('/admin/projects')
        .set(auth)
        .send({ name: 'Acme', redirectUrls: [APP_URL] })
        .expect(201);
      const { project, apiKeys } = created.body.data;
      for (const [slug, body] of Object.entries(providerSettings(providers))) {
        await request(app).put(`/admin/projects/${project.id}/oauth-providers/${slug}`).set(auth).send(body).expect(200);
      }
      const scope = { projectId: project.id, environment: 'production' as const };
      const stored = await storage.oauthProviders.find(scope, 'github');
      expect(stored?.sealedClientSecret).not.toContain(CLIENT.clientSecret);
      const ids = new Set<string>();
      for (const provider of ['github', 'discord', 'google', 'oidc']) {
        const landing = await browserSignIn(app, apiKeys.production, provider);
        const signedIn = await exchange(app, apiKeys.production, landing.searchParams.get('code')).expect(200);
        ids.add(signedIn.body.data.user.id);
      }
      expect(ids.size).toBe(1);
      const identities = await storage.identities.listForUser(scope, [...ids][0]);
      expect(identities.map((i) => i.provider)).toEqual(['discord', 'github', 'google', 'oidc']);
    }, 30_000);

    it('a provider e-mail no database can hold (a NUL) redirects with provider_error, never a 500', async () => {
      const app = createApp({ ...container, logger: silent, config: secrets.config });
      const auth = { Authorization: `Bearer ${secrets.config.adminToken}` };
      const created = await request(app)
        .post('/admin/projects')
        .set(auth)
        .send({ name: 'Nul', redirectUrls: [APP_URL] })
        .expect(201);
      const { project, apiKeys } = created.body.data;
      await request(app).put(`/admin/projects/${project.id}/oauth-providers/oidc`).set(auth).send(providerSettings(providers).oidc).expect(200);
      providers.openid.account = { ...ADA_OIDC, email: 'nul\u0000@example.com' };
      try {
        const landing = await browserSignIn(app, apiKeys.production, 'oidc');
        expect(landing.searchParams.get('error')).toBe('provider_error');
      } finally {
        providers.openid.account = { ...ADA_OIDC };
      }
    }, 30_000);
  });
}

composedSuite('SQLite', async () => ({ env: {}, cleanup: async () => {} }));

describeWithPostgres('social sign-in on PostgreSQL', (url) => {
  composedSuite('PostgreSQL', async () => {
    const { schema, drop } = await createTestSchema(url);
    return { env: { DATABASE_URL: url, SVC_DATABASE_SCHEMA: schema }, cleanup: drop };
  });
});
