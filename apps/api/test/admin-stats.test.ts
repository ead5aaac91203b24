import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { createSvcServer } from '../src';
import type { Container } from '../src/composition/container';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { REAL_ADMIN_TOKEN, startRealApp } from './support/real-app';
import { createTestDatabase } from './support/test-database';

// GET /admin/projects/{id}/environments/{env}/stats on the real composition, once on SQLite and
// once on PostgreSQL: sign-ins, sign-ups and refused sign-ins from the audit log, and requests
// refused with 429 counted in memory and stored by the flush before the read.

type Opened = { app: Express; container: Container; close(): Promise<void> };

// Two logins per address and e-mail, so the third is refused.
const ENV = { SVC_RATE_LIMITS: '{"login":{"limit":2,"windowSeconds":900}}' };

function statsSuite(label: string, open: (url: string) => Promise<Opened>, describeIt: (name: string, body: (url: string) => void) => void) {
  describeIt(`activity stats on ${label}`, (url) => {
    let opened: Opened;
    beforeAll(async () => {
      opened = await open(url);
    }, 60_000);
    afterAll(async () => opened?.close());

    const auth = { Authorization: `Bearer ${REAL_ADMIN_TOKEN}` };
    const today = () => new Date().toISOString().slice(0, 10);

    it('counts sign-ups, sign-ins, refused sign-ins and rate-limited requests of the environment, per UTC day', async () => {
      const { app, container } = opened;
      const created = await request(app).post('/admin/projects').set(auth).send({ name: 'Figures' }).expect(201);
      const id = created.body.data.project.id as string;
      const live = created.body.data.apiKeys.production as string;
      const login = (password: string) => request(app).post('/api/auth/login').set('X-API-Key', live).send({ email: 'ada@example.test', password });
      await request(app).post('/api/auth/signup').set('X-API-Key', live).send({ email: 'ada@example.test', password: 'correct horse battery' }).expect(201);
      await login('correct horse battery').expect(200);
      await login('wrong horse battery').expect(401);
      for (let i = 0; i < 3; i++) await login('correct horse battery').expect(429);
      // Counted in memory, not yet written: a flood of 429s is not a flood of writes.
      expect(container.rateLimitedTally.unflushed).toBe(3);

      const stats = await request(app).get(`/admin/projects/${id}/environments/production/stats?days=3`).set(auth).expect(200);
      expect(container.rateLimitedTally.unflushed).toBe(0);
      expect(stats.body.data.days).toHaveLength(3);
      expect(stats.body.data.days[2]).toEqual({ day: today(), signIns: 1, signUps: 1, signInFailures: 1, rateLimited: 3 });
      expect(stats.body.data.days.slice(0, 2).map((d: { signIns: number; rateLimited: number }) => d.signIns + d.rateLimited)).toEqual([0, 0]);
      expect(stats.body.data.totals).toEqual({ signIns: 1, signUps: 1, signInFailures: 1, rateLimited: 3 });
      // Stored: a second read (nothing left to flush) answers the same.
      expect((await request(app).get(`/admin/projects/${id}/environments/production/stats?days=3`).set(auth).expect(200)).body).toEqual(stats.body);

      const sandbox = await request(app).get(`/admin/projects/${id}/environments/sandbox/stats`).set(auth).expect(200);
      expect(sandbox.body.data.days).toHaveLength(14);
      expect(sandbox.body.data.totals).toEqual({ signIns: 0, signUps: 0, signInFailures: 0, rateLimited: 0 });
    });

    it('refuses a period outside 1 to 90 days, unknown parameters, a missing project and no token', async () => {
      const { app } = opened;
      const id = (await request(app).post('/admin/projects').set(auth).send({ name: 'Bounds' }).expect(201)).body.data.project.id as string;
      const path = `/admin/projects/${id}/environments/production/stats`;
      for (const days of ['0', '91', '1.5', 'week', '']) {
        expect((await request(app).get(`${path}?days=${days}`).set(auth).expect(400)).body).toEqual({ error: 'validation_error', message: 'days must be an integer from 1 to 90.' });
      }
      expect((await request(app).get(`${path}?day=3`).set(auth).expect(400)).body.message).toBe('The query has unknown parameter(s): day.');
      expect((await request(app).get(`${path}?days=90`).set(auth).expect(200)).body.data.days).toHaveLength(90);
      await request(app).get(`/admin/projects/${crypto.randomUUID()}/environments/production/stats`).set(auth).expect(404);
      await request(app).get(`/admin/projects/${id}/environments/staging/stats`).set(auth).expect(404);
      await request(app).get(path).expect(401);
    });
  });
}

statsSuite(
  'SQLite',
  async () => {
    const real = await startRealApp(ENV);
    return { app: real.app, container: real.container, close: real.close };
  },
  (name, body) => describe(name, () => body('')),
);
statsSuite(
  'PostgreSQL',
  async (url) => {
    const database = await createTestDatabase(url);
    const real = await startRealApp({ ...ENV, DATABASE_URL: database.url });
    return {
      app: real.app,
      container: real.container,
      close: async () => {
        await real.close();
        await database.drop();
      },
    };
  },
  describeWithPostgres,
);

describe('rate-limited counts across a restart', () => {
  it('stores what an instance counted when it stops, and the next one reads it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-stats-restart-'));
    const config = {
      dataDir: dir,
      bcryptCost: 4,
      adminToken: REAL_ADMIN_TOKEN,
      masterKey: '5'.repeat(64),
      logLevel: 'silent' as const,
      rateLimits: { ...DEFAULT_RATE_LIMITS, login: { ...DEFAULT_RATE_LIMITS.login, limit: 1 } },
    };
    const auth = { Authorization: `Bearer ${REAL_ADMIN_TOKEN}` };
    try {
      const first = await createSvcServer(config);
      const created = await request(first.app).post('/admin/projects').set(auth).send({ name: 'Restarted' }).expect(201);
      const id = created.body.data.project.id as string;
      const login = () => request(first.app).post('/api/auth/login').set('X-API-Key', created.body.data.apiKeys.sandbox).send({ email: 'ada@example.test', password: 'whatever it is' });
      await login().expect(401);
      await login().expect(429);
      await login().expect(429);
      expect(first.container.rateLimitedTally.unflushed).toBe(2);
      await first.stop();

      const second = await createSvcServer(config);
      try {
        const stats = await request(second.app).get(`/admin/projects/${id}/environments/sandbox/stats?days=1`).set(auth).expect(200);
        expect(stats.body.data.totals).toEqual({ signIns: 0, signUps: 0, signInFailures: 1, rateLimited: 2 });
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
