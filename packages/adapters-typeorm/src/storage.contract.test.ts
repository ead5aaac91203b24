import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId, passkeyFixture, seedScope, seedUser, storageContracts, userFixture } from '@svc/core/testing';
import { Client } from 'pg';
import { openStorage, type TypeormStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';

// Every storage port's contract suite, once per database this adapter speaks (as kratos's
// persister test loops over its connections), and the cases only a SQL schema has to pass.

/** A fresh storage for one suite or case; `close` drops what `open` created. */
type Open = () => Promise<{ storage: TypeormStorage; close(): Promise<void> }>;

/** A database file in a temp folder (nested, so openStorage creates the folders), deleted afterwards. */
const sqliteFile: Open = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'));
  const storage = await openStorage({ sqlitePath: join(dir, 'nested', 'svc.sqlite') });
  return {
    storage,
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/** The embedded default purely in memory (tests, demos): same behaviour. */
const sqliteMemory: Open = async () => {
  const storage = await openStorage({ sqlitePath: ':memory:' });
  return { storage, close: () => storage.close() };
};

/** A schema of its own, dropped with everything in it, so nothing depends on an earlier run. */
const postgresSchema =
  (url: string): Open =>
  async () => {
    const { schema, drop } = await createTestSchema(url);
    const storage = await openStorage({ databaseUrl: url, schema, poolSize: 20 });
    return {
      storage,
      close: async () => {
        await storage.close();
        await drop();
      },
    };
  };

/** Each database with the `describe` that makes it available: PostgreSQL's fails under CI=true when absent. */
const databases: { name: string; describe(body: (open: Open) => void): void }[] = [
  { name: 'sqlite file', describe: (body) => body(sqliteFile) },
  { name: 'sqlite :memory:', describe: (body) => body(sqliteMemory) },
  {
    name: 'postgres',
    describe: (body) =>
      describeWithPostgres('TypeORM storage on PostgreSQL', (url) => {
        body(postgresSchema(url));
        sharedOutboxCase(url);
        hotPathCase(postgresSchema(url));
      }),
  },
];

for (const { name, describe: on } of databases) {
  on((open) => {
    storageContracts(name, async () => {
      const { storage, close } = await open();
      return { ports: storage, close };
    });
    schemaCases(name, open);
  });
}

/**
 * What the schema's foreign keys promise: a user's rows go with the user, and never across
 * tenants. One storage for the block; each case seeds a project of its own.
 */
function schemaCases(name: string, open: Open): void {
  describe(`rows of a user on ${name}`, () => {
    let opened: Awaited<ReturnType<Open>>;
    beforeAll(async () => {
      opened = await open();
    });
    afterAll(() => opened.close());
    const seeded = async () => {
      const { storage } = opened;
      const scope = await seedScope(storage);
      return { storage, scope, user: await seedUser(storage, scope) };
    };
    const count = async (table: string) => {
      const [{ n }] = await opened.storage.database.query<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`);
      return Number(n);
    };

    it('known devices die with their user', async () => {
      const { storage, scope, user } = await seeded();
      await storage.knownDevices.remember(scope, user.id, ['a', 'b'], { at: new Date(), keep: 20 });
      await storage.users.delete(scope, user.id);
      expect(await count('known_devices')).toBe(0);
    });

    it('second-factor rows die with their user', async () => {
      const { storage, scope, user } = await seeded();
      await storage.twoFactor.beginTotp(scope, user.id, { sealedSecret: 's', createdAt: new Date() });
      await storage.twoFactor.enableTotp(scope, user.id, { sealedSecret: 's', usedStep: 1, recoveryCodeHashes: ['h'], enabledAt: new Date() });
      const passkey = passkeyFixture(user.id);
      await storage.passkeys.add(scope, passkey);
      await storage.users.delete(scope, user.id);
      expect(await storage.twoFactor.findTotp(scope, user.id)).toBeNull();
      expect(await storage.passkeys.findByCredentialId(scope, passkey.credentialId)).toBeNull();
      expect(await count('totp_recovery_codes')).toBe(0);
    });

    // The token reads join a token's session and the session's user by primary key alone
    // (session-statements.ts): they are in the token's scope only because these keys refuse the rest.
    it('a session never names a user of another scope, nor a refresh token a session of another scope', async () => {
      const { storage, scope, user } = await seeded();
      const session = { id: newId(), userId: user.id, rotationKey: newId(), createdAt: T0, refreshTokenHash: newId(), refreshExpiresAt: T0 };
      await storage.sessions.create(scope, session);
      const at = T0.toISOString();
      // A session of `foreign` held by this user, and a token of `foreign` naming this session.
      const strays = (foreign: { projectId: string; environment: string }) =>
        [
          ['INSERT INTO sessions (id, project_id, environment, user_id, created_at, rotation_key) VALUES ($1, $2, $3, $4, $5, $6)', user.id, 'k'],
          ['INSERT INTO refresh_tokens (token_hash, project_id, environment, session_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', session.id, at],
        ].map(
          ([sql, held, last]) =>
            () =>
              storage.database.query(sql, [newId(), foreign.projectId, foreign.environment, held, at, last]),
        );
      for (const foreign of [await seedScope(storage), { ...scope, environment: 'sandbox' }]) {
        for (const stray of strays(foreign)) await expect(stray()).rejects.toThrow(/FOREIGN KEY/i);
      }
      expect(await storage.database.query('SELECT id FROM sessions WHERE user_id = $1', [user.id])).toEqual([{ id: session.id }]);
    });

    it('identities die with their user; a link to a user of another scope is refused', async () => {
      const { storage, scope, user } = await seeded();
      const identity = { provider: 'github' as const, subject: '42', userId: user.id, email: null, createdAt: new Date() };
      await storage.identities.link(scope, identity);
      await expect(storage.identities.link({ ...scope, environment: 'sandbox' }, identity)).rejects.toThrow(/FOREIGN KEY/i);
      await storage.users.delete(scope, user.id);
      expect(await storage.identities.find(scope, 'github', '42')).toBeNull();
    });
  });
}

const T0 = new Date('2026-01-01T00:00:00.000Z');

/** Two storages on one schema = two API instances with their own pools, each running a worker. */
function sharedOutboxCase(url: string): void {
  it('shares the outbox between instances: concurrent claims never overlap (SKIP LOCKED)', async () => {
    const { schema, drop } = await createTestSchema(url);
    const a = await openStorage({ databaseUrl: url, schema, poolSize: 6 });
    const b = await openStorage({ databaseUrl: url, schema, poolSize: 6 });
    try {
      const scope = await seedScope(a);
      const ids = Array.from({ length: 60 }, () => newId());
      for (const id of ids) {
        await a.outbox.enqueue(scope, { id, to: 'x@example.test', template: 'magic_link', sealedPayload: 's', createdAt: T0, expiresAt: new Date('2027-01-01T00:00:00.000Z') });
      }
      const now = new Date('2026-01-01T00:00:01.000Z');
      const rounds = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).outbox.claimDue(now, { limit: 7, leaseSeconds: 60 })));
      const claimed = rounds.flat().map((m) => m.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      const rest = await a.outbox.claimDue(now, { limit: 100, leaseSeconds: 60 });
      expect([...claimed, ...rest.map((m) => m.id)].sort()).toEqual([...ids].sort());
    } finally {
      await a.close();
      await b.close();
      await drop();
    }
  });
}

/**
 * The round trips of the hot paths on PostgreSQL (bench/README.md): `/me` reads the user and its
 * session in one statement, refresh reads the token with its holder in one and rotates in one,
 * a sign-in opens its session with the first refresh token in one, also inside the sign-in's
 * unit of work, and a sign-up with no user limit to count creates its user in one. Counted as the
 * statements the pool's connections send.
 */
function hotPathCase(open: Open): void {
  /** A case on a fresh storage, given `statementsOf`: what the pool's connections sent while `work` ran (inside a unit of work with `inUnit`). */
  const counting = (body: (storage: TypeormStorage, statementsOf: (work: () => Promise<unknown>, inUnit?: boolean) => Promise<number>) => Promise<void>) => async () => {
    const { storage, close } = await open();
    const sent = jest.spyOn(Client.prototype, 'query');
    const statementsOf = async (work: () => Promise<unknown>, inUnit = false) => {
      let count = -1;
      const counted = async () => {
        sent.mockClear();
        await work();
        count = sent.mock.calls.length;
      };
      await (inUnit ? storage.unitOfWork.run(counted) : counted());
      return count;
    };
    try {
      await body(storage, statementsOf);
    } finally {
      sent.mockRestore();
      await close();
    }
  };

  it(
    'creates a user with no limit to count in one statement, alone and inside a unit of work; a taken address is still refused',
    counting(async (storage, statementsOf) => {
      const scope = await seedScope(storage);
      const [alone, inUnit] = [userFixture(), userFixture()];
      expect(await statementsOf(() => storage.users.createWithinLimit(scope, alone, { limit: null }))).toBe(1);
      expect(await statementsOf(() => storage.users.createWithinLimit(scope, inUnit, { limit: null }), true)).toBe(1);
      for (const user of [alone, inUnit]) expect((await storage.users.findByEmail(scope, user.email))?.id).toBe(user.id);
      expect(await storage.users.createWithinLimit(scope, userFixture({ email: alone.email }), { limit: null })).toEqual({ status: 'exists' });
    }),
  );

  it(
    'opens a session with its first refresh token in one statement, alone and inside a unit of work',
    counting(async (storage, statementsOf) => {
      const scope = await seedScope(storage);
      const user = await seedUser(storage, scope);
      const newSession = () => ({ id: newId(), userId: user.id, rotationKey: newId(), createdAt: T0, refreshTokenHash: newId(), refreshExpiresAt: new Date('2026-03-01T00:00:00.000Z') });
      const [alone, inUnit] = [newSession(), newSession()];
      expect(await statementsOf(() => storage.sessions.create(scope, alone))).toBe(1);
      expect(await statementsOf(() => storage.sessions.create(scope, inUnit), true)).toBe(1);
      for (const session of [alone, inUnit]) {
        expect(await storage.sessions.findRefreshToken(scope, session.refreshTokenHash)).toMatchObject({ sessionId: session.id });
      }
      // The session's foreign keys still hold in the one statement: a user of another scope is refused, and nothing is left of it.
      const other = await seedScope(storage);
      const refused = newSession();
      await expect(storage.sessions.create(other, refused)).rejects.toThrow();
      expect(await storage.sessions.findRefreshToken(other, refused.refreshTokenHash)).toBeNull();
    }),
  );

  it(
    'answers /me and refresh with one statement per step',
    counting(async (storage, statementsOf) => {
      const scope = await seedScope(storage);
      const user = await seedUser(storage, scope);
      const session = { id: newId(), userId: user.id, rotationKey: newId(), createdAt: T0, refreshTokenHash: newId(), refreshExpiresAt: new Date('2026-03-01T00:00:00.000Z') };
      await storage.sessions.create(scope, session);
      expect(await statementsOf(() => storage.sessions.findLiveSession(scope, user.id, session.id))).toBe(1);
      expect(await statementsOf(() => storage.sessions.findRefreshTokenWithHolder(scope, session.refreshTokenHash))).toBe(1);
      const rotation = {
        presentedHash: session.refreshTokenHash,
        successorHash: newId(),
        now: new Date('2026-01-02T00:00:00.000Z'),
        expiresAt: new Date('2026-03-01T00:00:00.000Z'),
        reuseGraceSeconds: 0,
      };
      expect(await statementsOf(() => storage.sessions.rotate(scope, rotation))).toBe(1);
      expect(await storage.sessions.findRefreshToken(scope, rotation.successorHash)).not.toBeNull();
    }),
  );
}
