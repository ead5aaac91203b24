import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { openStorage } from '@svc/adapters-typeorm';
import { createTestSchema, describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { REAL_ADMIN_TOKEN, startRealApp, type RealApp } from './support/real-app';

// A change and the audit entry that records it are one transaction: when the entry cannot be
// written, the change is not made either (and no webhook or change notice goes out for it), and
// the request is answered 503 service_unavailable with Retry-After, in the envelope, never a 500
// (docs/decisions.md, "An event that cannot be recorded"). The audit table is made to refuse
// inserts with a trigger, on the real database, from outside.

/** Turns the audit log's inserts into failures (`on`) or back (`off`), on the service's own database. */
type AuditSwitch = (on: boolean) => Promise<void>;
/** Moves every session's start back by years (past any absolute session lifetime), on the service's own database. */
type Backdate = () => Promise<void>;
const LONG_AGO = '2001-01-01T00:00:00.000Z';

/** The answer to a request whose record could not be written: the envelope's 503, nothing of the cause. */
function expectUnrecorded(res: request.Response): void {
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 503, error: 'service_unavailable' });
  expect(res.body.message).toEqual(expect.any(String));
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(JSON.stringify(res.body)).not.toMatch(/audit log refused|at .*\.ts:\d+/);
}

function atomicCases(start: (logLines: string[]) => Promise<{ real: RealApp; refuseAudit: AuditSwitch; backdateSessions: Backdate }>) {
  const logLines: string[] = [];
  let real: RealApp;
  let refuseAudit: AuditSwitch;
  let backdateSessions: Backdate;
  const admin = { Authorization: `Bearer ${REAL_ADMIN_TOKEN}` };
  let projectId: string;
  let apiKey: string;

  beforeAll(async () => {
    ({ real, refuseAudit, backdateSessions } = await start(logLines));
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
      expectUnrecorded(await request(real.app).post(`${users()}/${userId}/ban`).set(admin));
      // Nor a role change, nor a project setting.
      expectUnrecorded(await request(real.app).patch(`${users()}/${userId}`).set(admin).send({ role: 'editor' }));
      expectUnrecorded(await request(real.app).patch(`/admin/projects/${projectId}`).set(admin).send({ accessTokenTtlSeconds: 600 }));
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
      // The refresh hot path (answered without Express) gives the same answer.
      expectUnrecorded(await request(real.app).post('/api/auth/refresh').set('X-API-Key', apiKey).send({ refreshToken: signedUp.body.data.refreshToken }));
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

  it('a session past its lifetime whose end cannot be recorded is not ended: 503; recorded and ended on the next try', async () => {
    const signedUp = await request(real.app).post('/api/auth/signup').set('X-API-Key', apiKey).send({ email: 'eve@example.test', password: 'eve horse battery' }).expect(201);
    const userId = signedUp.body.data.user.id as string;
    const live = async () =>
      ((await request(real.app).get(`${users()}/${userId}`).set(admin).expect(200)).body.data.user.sessions as { revokedAt: string | null }[]).filter((s) => s.revokedAt === null).length;
    await backdateSessions();
    await refuseAudit(true);
    try {
      expectUnrecorded(await request(real.app).post('/api/auth/refresh').set('X-API-Key', apiKey).send({ refreshToken: signedUp.body.data.refreshToken }));
    } finally {
      await refuseAudit(false);
    }
    // Not ended without its record...
    expect(await live()).toBe(1);
    // ...and ended, recorded, on the next try.
    const ended = await request(real.app).post('/api/auth/refresh').set('X-API-Key', apiKey).send({ refreshToken: signedUp.body.data.refreshToken });
    expect({ status: ended.status, error: ended.body.error }).toEqual({ status: 401, error: 'invalid_refresh_token' });
    expect(await live()).toBe(0);
    const entries = (await request(real.app).get(`/admin/projects/${projectId}/environments/production/audit-log?type=session.revoked`).set(admin).expect(200)).body.data.entries as {
      userId: string;
      data: { why: string };
    }[];
    expect(entries.filter((e) => e.userId === userId).map((e) => e.data.why)).toEqual(['session_ended']);
  });

  it('a sign-in, a sign-up or a refused sign-in that cannot be recorded: 503, no session, no user; recorded once writable', async () => {
    const signedUp = await request(real.app).post('/api/auth/signup').set('X-API-Key', apiKey).send({ email: 'cy@example.test', password: 'cy horse battery' }).expect(201);
    const sessions = async () => ((await request(real.app).get(`${users()}/${signedUp.body.data.user.id}`).set(admin).expect(200)).body.data.user.sessions as unknown[]).length;
    const before = await sessions();
    await refuseAudit(true);
    logLines.length = 0;
    try {
      expectUnrecorded(await request(real.app).post('/api/auth/login').set('X-API-Key', apiKey).send({ email: 'cy@example.test', password: 'cy horse battery' }));
      expectUnrecorded(await request(real.app).post('/api/auth/login').set('X-API-Key', apiKey).send({ email: 'cy@example.test', password: 'wrong horse battery' }));
      expectUnrecorded(await request(real.app).post('/api/auth/signup').set('X-API-Key', apiKey).send({ email: 'dee@example.test', password: 'dee horse battery' }));
    } finally {
      await refuseAudit(false);
    }
    expect(await sessions()).toBe(before);
    // One warning per refused request, naming the cause for the operator; no password, no token.
    const warnings = logLines.filter((line) => line.includes('dependency unavailable'));
    expect(warnings).toHaveLength(3);
    for (const line of warnings) expect(line).toMatch(/audit log refused/);
    expect(logLines.join('\n')).not.toMatch(/horse battery|cy@example|dee@example/);
    expect(logLines.join('\n')).not.toContain(signedUp.body.data.refreshToken);
    // The sign-up left nobody behind: the same address signs up now.
    await request(real.app).post('/api/auth/signup').set('X-API-Key', apiKey).send({ email: 'dee@example.test', password: 'dee horse battery' }).expect(201);
    await request(real.app).post('/api/auth/login').set('X-API-Key', apiKey).send({ email: 'cy@example.test', password: 'wrong horse battery' }).expect(401);
    expect(await auditTypes()).toContain('user.sign_in_failed');
  });
}

describe('a change and its audit entry on SQLite', () => {
  let dir: string;
  atomicCases(async (logLines) => {
    dir = await mkdtemp(join(tmpdir(), 'svc-atomic-'));
    const real = await startRealApp({ SVC_DATA_DIR: dir }, { logLines });
    const refuseAudit: AuditSwitch = async (on) => {
      // Another connection to the file, as an operator's sqlite3 shell would be.
      const other = await openStorage({ sqlitePath: join(dir, 'svc.sqlite') });
      try {
        await other.database.query(on ? "CREATE TRIGGER audit_refused BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'audit log refused'); END" : 'DROP TRIGGER IF EXISTS audit_refused');
      } finally {
        await other.close();
      }
    };
    const backdateSessions: Backdate = async () => {
      const other = await openStorage({ sqlitePath: join(dir, 'svc.sqlite') });
      try {
        await other.database.query('UPDATE sessions SET created_at = $1', [LONG_AGO]);
      } finally {
        await other.close();
      }
    };
    return {
      backdateSessions,
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
  atomicCases(async (logLines) => {
    const schema = await createTestSchema(databaseUrl);
    drop = schema.drop;
    const real = await startRealApp({ DATABASE_URL: databaseUrl, SVC_DATABASE_SCHEMA: schema.schema }, { logLines });
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
    const backdateSessions: Backdate = async () => {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`UPDATE "${schema.schema}".sessions SET created_at = $1`, [LONG_AGO]);
      } finally {
        await client.end();
      }
    };
    return { real, refuseAudit, backdateSessions };
  });
});
