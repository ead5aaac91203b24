import { at, newId, projectFixture, useStorage, userFixture, type StorageFactory } from './storage-fixture';

/** Contract every ProjectRepository passes. */
export function projectRepositoryContract(label: string, factory: StorageFactory): void {
  describe(`ProjectRepository contract: ${label}`, () => {
    const ports = useStorage(factory);

    it('round-trips every field', async () => {
      const project = projectFixture({
        plan: 'PRO',
        allowedOrigins: ['https://app.example.test', 'http://localhost:5173'],
        defaultMeta: { tier: 'gold', nested: { a: [1, 2, { b: null }] }, unicode: 'häß ✓' },
        redirectUrls: ['https://app.example.test/cb'],
        magicLinkUrl: 'https://app.example.test/magic',
        passwordResetUrl: 'https://app.example.test/reset',
        oidcLoginUrl: 'https://app.example.test/login',
        userLimit: 42,
        emailTemplates: {
          magicLink: { subject: 'Sign in to {{projectName}}', text: 'Open {{link}} ✓' },
          passwordReset: { html: '<a href="{{link}}">Reset</a>' },
        },
        webauthn: { rpId: 'example.test', rpName: 'Example ✓', origins: ['https://app.example.test'] },
        accessTokenTtlSeconds: 600,
        refreshTokenTtlSeconds: 3600,
        refreshReuseGraceSeconds: 5,
        absoluteSessionLifetimeSeconds: 86_400,
        rejectCommonPasswords: true,
        rateLimits: { sandbox: { signup: { limit: 500 }, login: { limit: 50, windowSeconds: 60 } } },
      });
      await ports().projects.create(project);
      expect(await ports().projects.findById(project.id)).toEqual(project);
    });

    it('answers null for an unknown id', async () => {
      expect(await ports().projects.findById(newId())).toBeNull();
    });

    it('rejects a duplicate id', async () => {
      const project = projectFixture();
      await ports().projects.create(project);
      await expect(ports().projects.create({ ...project, name: 'other' })).rejects.toThrow();
    });

    it('updates only the given fields and stamps updatedAt', async () => {
      const project = projectFixture({ allowedOrigins: ['https://a.test'], userLimit: 5 });
      await ports().projects.create(project);
      const later = at('2026-02-01T10:00:00.123Z');
      const updated = await ports().projects.update(project.id, { plan: 'SOLO', userLimit: null, defaultMeta: { x: 1 } }, later);
      const expected = { ...project, plan: 'SOLO', userLimit: null, defaultMeta: { x: 1 }, updatedAt: later };
      expect(updated).toEqual(expected);
      expect(await ports().projects.findById(project.id)).toEqual(expected);
    });

    it('turns the common-password check on and off and changes the absolute session lifetime and the recent sign-in window', async () => {
      const project = projectFixture();
      await ports().projects.create(project);
      const on = {
        rejectCommonPasswords: true,
        absoluteSessionLifetimeSeconds: 3600,
        recentSignInSeconds: 60,
        emailVerification: 'required' as const,
        emailVerificationUrl: 'https://app.example.test/verify',
      };
      expect(await ports().projects.update(project.id, on, project.updatedAt)).toMatchObject(on);
      expect(await ports().projects.findById(project.id)).toMatchObject(on);
      expect((await ports().projects.update(project.id, { rejectCommonPasswords: false }, project.updatedAt))?.rejectCommonPasswords).toBe(false);
      expect(await ports().projects.findById(project.id)).toMatchObject({ rejectCommonPasswords: false, absoluteSessionLifetimeSeconds: 3600, recentSignInSeconds: 60 });
    });

    it('sets and clears the e-mail templates', async () => {
      const project = projectFixture();
      await ports().projects.create(project);
      const emailTemplates = { passwordReset: { subject: 'Reset', text: 'Go to {{link}}' } };
      expect((await ports().projects.update(project.id, { emailTemplates }, project.updatedAt))?.emailTemplates).toEqual(emailTemplates);
      expect((await ports().projects.update(project.id, { emailTemplates: null }, project.updatedAt))?.emailTemplates).toBeNull();
      expect((await ports().projects.findById(project.id))?.emailTemplates).toBeNull();
    });

    it("sets and clears the project's own rate limits", async () => {
      const project = projectFixture();
      await ports().projects.create(project);
      const rateLimits = { production: { refresh: { windowSeconds: 120 } }, sandbox: { signup: { limit: 1000 } } };
      expect((await ports().projects.update(project.id, { rateLimits }, project.updatedAt))?.rateLimits).toEqual(rateLimits);
      expect((await ports().projects.findById(project.id))?.rateLimits).toEqual(rateLimits);
      expect((await ports().projects.update(project.id, { rateLimits: null }, project.updatedAt))?.rateLimits).toBeNull();
      expect((await ports().projects.findById(project.id))?.rateLimits).toBeNull();
    });

    it('sets and clears the WebAuthn relying party', async () => {
      const project = projectFixture();
      await ports().projects.create(project);
      const webauthn = { rpId: 'example.test', rpName: 'Example', origins: ['https://example.test', 'https://app.example.test'] };
      expect((await ports().projects.update(project.id, { webauthn }, project.updatedAt))?.webauthn).toEqual(webauthn);
      expect((await ports().projects.update(project.id, { webauthn: null }, project.updatedAt))?.webauthn).toBeNull();
      expect((await ports().projects.findById(project.id))?.webauthn).toBeNull();
    });

    it('answers null when updating an unknown project', async () => {
      expect(await ports().projects.update(newId(), { name: 'x' }, new Date())).toBeNull();
    });

    it('lists projects by id, searches names case-insensitively and deletes them', async () => {
      // A storage of its own, so the list holds only these.
      const fresh = await factory();
      try {
        const projects = fresh.ports.projects;
        const names = ['Shop Europe', 'shop_us', 'Blog', 'SHOPPING 100%'];
        for (const name of names) await projects.create(projectFixture({ name }));
        const first = await projects.list({ limit: 3 });
        const rest = await projects.list({ limit: 3, cursor: first.nextCursor! });
        expect(first.projects).toHaveLength(3);
        expect(rest.projects).toHaveLength(1);
        expect(rest.nextCursor).toBeNull();
        const ids = [...first.projects, ...rest.projects].map((p) => p.id);
        expect(ids).toEqual([...ids].sort());
        const named = async (search: string) => (await projects.list({ search, limit: 10 })).projects.map((p) => p.name).sort();
        expect(await named('shop')).toEqual(['SHOPPING 100%', 'Shop Europe', 'shop_us']);
        expect(await named('_')).toEqual(['shop_us']);
        expect(await named('%')).toEqual(['SHOPPING 100%']);
        const blog = first.projects.concat(rest.projects).find((p) => p.name === 'Blog')!;
        expect(await projects.delete(blog.id)).toBe(true);
        expect(await projects.findById(blog.id)).toBeNull();
        expect(await projects.delete(blog.id)).toBe(false);
        expect(await projects.delete('not-an-id')).toBe(false);
        expect(await named('blog')).toEqual([]);
      } finally {
        await fresh.close();
      }
    });

    it('deletes a project with its users', async () => {
      const project = projectFixture();
      await ports().projects.create(project);
      const scope = { projectId: project.id, environment: 'production' as const };
      const user = userFixture();
      await ports().users.createWithinLimit(scope, user, { limit: null });
      expect(await ports().projects.delete(project.id)).toBe(true);
      expect(await ports().users.findById(scope, user.id)).toBeNull();
    });

    it('is empty until its first project is stored', async () => {
      // A storage of its own: the suite's shared one holds the other cases' projects.
      const fresh = await factory();
      try {
        expect(await fresh.ports.projects.isEmpty()).toBe(true);
        await fresh.ports.projects.create(projectFixture());
        expect(await fresh.ports.projects.isEmpty()).toBe(false);
      } finally {
        await fresh.close();
      }
    });
  });
}
