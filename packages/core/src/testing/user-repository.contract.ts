import { at, newId, seedScope, seedUser, useStorage, userFixture, type StorageFactory } from './storage-fixture';

/** Contract every UserRepository passes, including tenant isolation and the concurrent limit. */
export function userRepositoryContract(label: string, factory: StorageFactory): void {
  describe(`UserRepository contract: ${label}`, () => {
    const ports = useStorage(factory);

    it('round-trips every field', async () => {
      const scope = await seedScope(ports());
      const user = userFixture({
        passwordHash: null,
        role: 'admin',
        meta: { plan: 'x', nested: { list: [1, 'two', { three: true }] }, emoji: '✓' },
        emailVerified: true,
        bannedAt: at('2026-01-03T04:05:06.789Z'),
        lastLoginAt: at('2026-01-02T00:00:00.001Z'),
      });
      expect(await ports().users.createWithinLimit(scope, user, { limit: null })).toEqual({ status: 'created' });
      expect(await ports().users.findById(scope, user.id)).toEqual(user);
      expect(await ports().users.findByEmail(scope, user.email)).toEqual(user);
    });

    it('a lookup by text no database holds (NUL, an unpaired surrogate) finds nothing, without an error', async () => {
      const scope = await seedScope(ports());
      await seedUser(ports(), scope, { email: 'ada@example.test' });
      for (const email of ['ada\u0000@example.test', 'ada@example.test\u0000', '\ud800ada@example.test']) {
        expect(await ports().users.findByEmail(scope, email)).toBeNull();
      }
    });

    it('refuses a second user with the same e-mail in one scope', async () => {
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope);
      const again = userFixture({ email: user.email });
      expect(await ports().users.createWithinLimit(scope, again, { limit: null })).toEqual({ status: 'exists' });
      expect(await ports().users.count(scope)).toBe(1);
    });

    it('keeps projects and environments apart', async () => {
      const production = await seedScope(ports(), 'production');
      const sandbox = { ...production, environment: 'sandbox' as const };
      const other = await seedScope(ports(), 'production');
      const user = await seedUser(ports(), production);
      for (const scope of [sandbox, other]) {
        expect(await ports().users.findById(scope, user.id)).toBeNull();
        expect(await ports().users.findByEmail(scope, user.email)).toBeNull();
        expect(await ports().users.setBanned(scope, user.id, new Date())).toBe(false);
        expect(await ports().users.delete(scope, user.id)).toBe(false);
        expect((await ports().users.list(scope, { limit: 10 })).users).toEqual([]);
      }
      // The same e-mail may exist in the other environment and the other project.
      const twin = userFixture({ email: user.email });
      expect(await ports().users.createWithinLimit(sandbox, twin, { limit: null })).toEqual({ status: 'created' });
      expect(await ports().users.createWithinLimit(other, { ...twin, id: newId() }, { limit: null })).toEqual({
        status: 'created',
      });
      expect((await ports().users.findById(production, user.id))?.bannedAt).toBeNull();
    });

    it('enforces the limit', async () => {
      const scope = await seedScope(ports());
      await seedUser(ports(), scope);
      await seedUser(ports(), scope);
      expect(await ports().users.createWithinLimit(scope, userFixture(), { limit: 2 })).toEqual({ status: 'limit_reached' });
      expect(await ports().users.createWithinLimit(scope, userFixture(), { limit: 3 })).toEqual({ status: 'created' });
    });

    it('lets exactly one of many concurrent creates through at limit - 1', async () => {
      const scope = await seedScope(ports());
      for (let i = 0; i < 4; i += 1) await seedUser(ports(), scope);
      const results = await Promise.all(Array.from({ length: 12 }, () => ports().users.createWithinLimit(scope, userFixture(), { limit: 5 })));
      expect(results.filter((r) => r.status === 'created')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'limit_reached')).toHaveLength(11);
      expect(await ports().users.count(scope)).toBe(5);
    });

    it('lets exactly one of many concurrent creates with one e-mail through', async () => {
      const scope = await seedScope(ports());
      const email = `${newId()}@race.test`;
      const results = await Promise.all(Array.from({ length: 8 }, () => ports().users.createWithinLimit(scope, userFixture({ email }), { limit: null })));
      expect(results.filter((r) => r.status === 'created')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'exists')).toHaveLength(7);
    });

    it('records logins, bans and unbans', async () => {
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope);
      const when = at('2026-05-05T05:05:05.005Z');
      await ports().users.recordLogin(scope, user.id, when);
      expect(await ports().users.setBanned(scope, user.id, when)).toBe(true);
      let stored = await ports().users.findById(scope, user.id);
      expect(stored?.lastLoginAt).toEqual(when);
      expect(stored?.bannedAt).toEqual(when);
      expect(await ports().users.setBanned(scope, user.id, null)).toBe(true);
      stored = await ports().users.findById(scope, user.id);
      expect(stored?.bannedAt).toBeNull();
    });

    it('sets a new password and marks the e-mail verified, in its own scope only', async () => {
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope, { passwordHash: null, emailVerified: false });
      for (const foreign of [{ ...scope, environment: 'sandbox' as const }, await seedScope(ports())]) {
        expect(await ports().users.setPassword(foreign, user.id, 'stolen')).toBe(false);
        expect(await ports().users.markEmailVerified(foreign, user.id)).toBe(false);
      }
      expect(await ports().users.setPassword(scope, user.id, 'new-hash')).toBe(true);
      expect(await ports().users.markEmailVerified(scope, user.id)).toBe(true);
      expect(await ports().users.markEmailVerified(scope, user.id)).toBe(true);
      expect(await ports().users.findById(scope, user.id)).toEqual({ ...user, passwordHash: 'new-hash', emailVerified: true });
      expect(await ports().users.setPassword(scope, newId(), 'x')).toBe(false);
      expect(await ports().users.markEmailVerified(scope, 'not-a-uuid')).toBe(false);
    });

    it('changes the e-mail to a verified one, unless another user of the scope holds it', async () => {
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope, { emailVerified: false });
      const other = await seedUser(ports(), scope);
      const sandbox = { ...scope, environment: 'sandbox' as const };
      const elsewhere = await seedUser(ports(), sandbox, { email: 'taken-elsewhere@example.test' });
      expect(await ports().users.changeEmail(scope, user.id, other.email)).toBe('exists');
      expect(await ports().users.changeEmail(sandbox, user.id, 'x@example.test')).toBe('not_found');
      expect(await ports().users.changeEmail(scope, 'not-a-uuid', 'x@example.test')).toBe('not_found');
      expect(await ports().users.changeEmail(scope, user.id, elsewhere.email)).toBe('changed');
      expect(await ports().users.findById(scope, user.id)).toEqual({ ...user, email: elsewhere.email, emailVerified: true });
      expect(await ports().users.findByEmail(scope, user.email)).toBeNull();
      expect(await ports().users.changeEmail(scope, user.id, elsewhere.email)).toBe('changed');
      const racers = await Promise.all([user, other].map((_u, i) => ports().users.changeEmail(scope, i === 0 ? other.id : user.id, 'race@example.test')));
      expect(racers.sort()).toEqual(['changed', 'exists']);
    });

    it('clears a password, in its own scope only', async () => {
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope, { passwordHash: 'hash' });
      for (const foreign of [{ ...scope, environment: 'sandbox' as const }, await seedScope(ports())]) {
        expect(await ports().users.clearPassword(foreign, user.id)).toBe(false);
      }
      expect((await ports().users.findById(scope, user.id))?.passwordHash).toBe('hash');
      expect(await ports().users.clearPassword(scope, user.id)).toBe(true);
      expect(await ports().users.clearPassword(scope, user.id)).toBe(true);
      expect(await ports().users.findById(scope, user.id)).toEqual({ ...user, passwordHash: null });
      expect(await ports().users.clearPassword(scope, newId())).toBe(false);
      expect(await ports().users.clearPassword(scope, 'not-a-uuid')).toBe(false);
    });

    it('deletes a user, once', async () => {
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope);
      expect(await ports().users.delete(scope, user.id)).toBe(true);
      expect(await ports().users.delete(scope, user.id)).toBe(false);
      expect(await ports().users.findById(scope, user.id)).toBeNull();
      expect(await ports().users.count(scope)).toBe(0);
    });

    it('pages through users by id and filters by e-mail', async () => {
      const scope = await seedScope(ports());
      const created = [];
      for (let i = 0; i < 5; i += 1) created.push(await seedUser(ports(), scope));
      const ids = created.map((u) => u.id).sort();
      const first = await ports().users.list(scope, { limit: 2 });
      expect(first.users.map((u) => u.id)).toEqual(ids.slice(0, 2));
      const second = await ports().users.list(scope, { limit: 2, cursor: first.nextCursor! });
      expect(second.users.map((u) => u.id)).toEqual(ids.slice(2, 4));
      const last = await ports().users.list(scope, { limit: 2, cursor: second.nextCursor! });
      expect(last.users.map((u) => u.id)).toEqual(ids.slice(4));
      expect(last.nextCursor).toBeNull();
      const byEmail = await ports().users.list(scope, { limit: 10, email: created[3].email });
      expect(byEmail.users).toEqual([created[3]]);
    });

    it('searches e-mails by substring, with LIKE wildcards taken literally, and counts the matches', async () => {
      const scope = await seedScope(ports());
      const other = await seedScope(ports());
      const emails = ['ada.lovelace@example.test', 'grace_hopper@example.test', 'alan%turing@example.test', 'adaline@other.test', 'bob@x.test'];
      const users = [];
      for (const email of emails) users.push(await seedUser(ports(), scope, { email }));
      await seedUser(ports(), other, { email: 'ada@example.test' });
      const emailsOf = async (search: string, limit = 10, cursor?: string) => (await ports().users.list(scope, { search, limit, cursor })).users.map((u) => u.email).sort();
      expect(await emailsOf('ada')).toEqual(['ada.lovelace@example.test', 'adaline@other.test']);
      expect(await ports().users.count(scope, { search: 'ada' })).toBe(2);
      expect(await emailsOf('_')).toEqual(['grace_hopper@example.test']);
      expect(await emailsOf('%')).toEqual(['alan%turing@example.test']);
      expect(await emailsOf('a.l')).toEqual(['ada.lovelace@example.test']);
      expect(await emailsOf('\\')).toEqual([]);
      expect(await ports().users.count(scope, { search: 'nobody' })).toBe(0);
      expect(await ports().users.count(scope)).toBe(5);
      // Keyset paging within a search.
      const first = await ports().users.list(scope, { search: 'example.test', limit: 2 });
      const rest = await ports().users.list(scope, { search: 'example.test', limit: 2, cursor: first.nextCursor! });
      expect(first.users).toHaveLength(2);
      expect(rest.users).toHaveLength(1);
      expect(rest.nextCursor).toBeNull();
      const paged = [...first.users, ...rest.users].map((u) => u.id);
      expect(paged).toEqual([...paged].sort());
    });

    it('updates role, meta and the verified flag, only in its own scope', async () => {
      const scope = await seedScope(ports());
      const user = await seedUser(ports(), scope, { meta: { a: 1 } });
      const updated = await ports().users.updateProfile(scope, user.id, { role: 'admin', meta: { b: [1, { c: true }] } });
      expect(updated).toEqual({ ...user, role: 'admin', meta: { b: [1, { c: true }] } });
      expect(await ports().users.findById(scope, user.id)).toEqual(updated);
      expect(await ports().users.updateProfile(scope, user.id, { emailVerified: true })).toEqual({ ...updated, emailVerified: true });
      expect(await ports().users.updateProfile(scope, user.id, {})).toEqual({ ...updated, emailVerified: true });
      expect(await ports().users.updateProfile({ ...scope, environment: 'sandbox' }, user.id, { role: 'x' })).toBeNull();
      expect(await ports().users.updateProfile(scope, newId(), { role: 'x' })).toBeNull();
      expect((await ports().users.findById(scope, user.id))!.role).toBe('admin');
    });

    it('treats odd lookups as misses, never as "any row"', async () => {
      const scope = await seedScope(ports());
      await seedUser(ports(), scope);
      expect(await ports().users.findByEmail(scope, '')).toBeNull();
      expect(await ports().users.findById(scope, '')).toBeNull();
      expect(await ports().users.findById(scope, 'not-a-uuid')).toBeNull();
      expect(await ports().users.findByEmail(scope, "' OR 1=1 --")).toBeNull();
    });
  });
}
