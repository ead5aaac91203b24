import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { openStorage } from '@svc/adapters-typeorm';
import { createTestSchema, describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { REAL_ADMIN_TOKEN, startRealApp, type RealApp } from './support/real-app';

// A change and the audit entry that records it are one transaction: when the entry cannot be
// written, the change is not made either (and no webhook or change notice goes out for it). The
// audit table is made to refuse inserts with a trigger, on the real database, from outside.

/** Turns the audit log's inserts into failures (`on`) or back (`off`), on the service's own database. */
type AuditSwitch = (on: boolean) => Promise<void>;

function atomicCases(start: () => Promise<{ real: RealApp; refuseAudit: AuditSwitch }>) {
  let real: RealApp;
  let refuseAudit: AuditSwitch;
  const admin = { Authorization: `Bearer ${REAL_ADMIN_TOKEN}` };
  let projectId: string;
  let apiKey: string;

  beforeAll(async () => {
    ({ real, refuseAudit } = await start());
    const created = await request(real.app).post('/admin/projects').set(admin).send({ name: 'Atomic' }).expect(201);
    projectId = created.body.data.project.id;
    apiKey = created.body.data.apiKeys.production;
  }, 60_000);
  afterAll(async () => {
    await refuseAudit?.(false);
    await real?.close();
  });

  const users = () => `/admin/projects/${projectId}/environments/production/users`;
  const auditTypes = async () =>
    ((await request(real.app).get(`/admin/projects/${projectId}/environments/production/audit-log`).set(admin).expect(200)).body.data.entries as { type: string }[]).map((e) => e.type);

  it('an admin ban whose audit entry cannot be written is not made: the user stays signed in and unbanned', async () => {
    const signedUp = await request(real.app).post('/api/auth/signup').set('X-API-Key', apiKey).send({ email: 'ada@example.test', password: 'ada horse battery' }).expect(201);
    const userId = signedUp.body.data.user.id as string;
    await refuseAudit(true);
    try {
      const refused = await request(real.app).post(`${users()}/${userId}/ban`).set(admin);
      expect(refused.status).toBeGreaterThanOrEqual(500);
      expect(refused.body.error).toEqual(expect.any(String));
      expect(JSON.stringify(refused.body)).not.toMatch(/at .*\.ts:\d+/);
      // Nor a role change, nor a project setting.
      expect((await request(real.app).patch(`${users()}/${userId}`).set(admin).send({ role: 'editor' })).status).toBeGreaterThanOrEqual(500);
      expect((await request(real.app).patch(`/admin/projects/${projectId}`).set(admin).send({ accessTokenTtlSeconds: 600 })).status).toBeGreaterThanOrEqual(500);
    } finally {
      await refuseAudit(false);
    }
    const detail = (await request(real.app).get(`${users()}/${userId}`).set(admin).expect(200)).body.data;
    expect(detail.user).toMatchObject({ banned: false, role: 'user' });
    expect(detail.user.sessions.filter((s: { revokedAt: string | null }) => s.revokedAt === null)).toHaveLength(1);
    await request(real.app).post('/api/auth/refresh').set('X-API-Key', apiKey).send({ refreshToken: signedUp.body.data.refreshToken }).expect(200);
    expect((await request(real.app).get(`/admin/projects/${projectId}`).set(admin).expect(200)).body.data.project.accessTokenTtlSeconds).toBe(900);
    expect(await auditTypes()).not.toContain('user.banned');

    // With the log writable again the same ban goes through, recorded.
    await request(real.app).post(`${users()}/${userId}/ban`).set(admin).expect(200);
    expect((await request(real.app).get(`${users()}/${userId}`).set(admin).expect(200)).body.data.user.banned).toBe(true);
    expect(await auditTypes()).toEqual(expect.arrayContaining(['user.banned', 'session.revoked']));
  });

  it('a replayed refresh token whose event cannot be written revokes nothing; written, it revokes and records', async () => {
    const signedUp = await request(real.app).post('/api/auth/signup').set('X-API-Key', apiKey).send({ email: 'bob@example.test', password: 'bob horse battery' }).expect(201);
    const rotated = await request(real.app).post('/api/auth/refresh').set('X-API-Key', apiKey).send({ refreshToken: signedUp.body.data.refreshToken }).expect(200);
    await refuseAudit(true);
    try {
      expect((await request(real.app).post('/api/auth/refresh').set('X-API-Key', apiKey).send({ refreshToken: signedUp.body.data.refreshToken })).status).toBeGreaterThanOrEqual(500);
    } finally {
      await refuseAudit(false);
    }
    // Nothing was revoked without its record: the rotated token still works...
    const next = await request(real.app).post('/api/auth/refresh').set('X-API-Key', apiKey).send({ refreshToken: rotated.body.data.refreshToken }).expect(200);
    // ...and the replay, presented again with the log writable, is answered as the contract says.
    await request(real.app).post('/api/auth/refresh').set('X-API-Key', apiKey).send({ refreshToken: signedUp.body.data.refreshToken }).expect(401);
    await request(real.app).post('/api/auth/refresh').set('X-API-Key', apiKey).send({ refreshToken: next.body.data.refreshToken }).expect(401);
    expect(await auditTypes()).toContain('refresh_token.reused');
  });
}

describe('a change and its audit entry on SQLite', () => {
  let dir: string;
  atomicCases(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-atomic-'));
    const real = await startRealApp({ SVC_DATA_DIR: dir });
    const refuseAudit: AuditSwitch = async (on) => {
      // Another connection to the file, as an operator's sqlite3 shell would be.
      const other = await openStorage({ sqlitePath: join(dir, 'svc.sqlite') });
      try {
        await other.database.query(on ? "CREATE TRIGGER audit_refused BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'audit log refused'); END" : 'DROP TRIGGER IF EXISTS audit_refused');
      } finally {
        await other.close();
      }
    };
    return {
      real: {
        ...real,
        close: async () => {
          await real.close();
          await rm(dir, { recursive: true, force: true });
        },
      },
      refuseAudit,
    };
  });
});

describeWithPostgres('a change and its audit entry on PostgreSQL', (databaseUrl) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await drop?.();
  });
  atomicCases(async () => {
    const schema = await createTestSchema(databaseUrl);
    drop = schema.drop;
    const real = await startRealApp({ DATABASE_URL: databaseUrl, SVC_DATABASE_SCHEMA: schema.schema });
    const refuseAudit: AuditSwitch = async (on) => {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        const table = `"${schema.schema}".audit_log`;
        if (on) {
          await client.query(`CREATE OR REPLACE FUNCTION "${schema.schema}".audit_refused() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit log refused'; END $$`);
          await client.query(`CREATE TRIGGER audit_refused BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION "${schema.schema}".audit_refused()`);
        } else {
          await client.query(`DROP TRIGGER IF EXISTS audit_refused ON ${table}`);
        }
      } finally {
        await client.end();
      }
    };
    return { real, refuseAudit };
  });
});
