import { OutageProxy, waitUntil } from '@svc/adapters-redis/testing';
import { describeWithPostgres } from '@svc/adapters-typeorm/testing';
import type { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { listenRealApp, REAL_ADMIN_TOKEN, type ListeningApp } from './support/real-app';

// A database that stops answering, holds a lock or turns read-only, under the real composition
// (buildContainer, PostgreSQL): the API must answer 503 service_unavailable with Retry-After
// within its configured timeouts, say so on /readyz, and recover by itself. The API reaches
// PostgreSQL through a TCP relay the test can freeze: connections stay open and bytes wait, as
// when the database host stops answering without resetting anything.

/** Short timeouts, so that each decision is quick here; the defaults are in docs/operating.md. */
const TIMEOUTS = {
  SVC_DB_CONNECT_TIMEOUT_MS: '500',
  SVC_DB_ACQUIRE_TIMEOUT_MS: '500',
  SVC_DB_STATEMENT_TIMEOUT_MS: '500',
  SVC_DB_LOCK_TIMEOUT_MS: '500',
  SVC_READY_TIMEOUT_MS: '1000',
};
/** The longest a request may take with those timeouts (statement + the client's margin + slack on a loaded machine). */
const QUICK_MS = 3000;
/** A request still waiting after this is a hang. */
const HANG_MS = 8000;

interface Answer {
  status: number;
  body: { error?: string; message?: string; data?: Record<string, unknown> };
  retryAfter: string | null;
  ms: number;
}

describeWithPostgres('a database that stops answering, locks or turns read-only', (serverUrl) => {
  let db: TestDatabase;
  let relay: OutageProxy;
  let api: ListeningApp;
  let key: string;
  let accessToken: string;

  async function call(method: string, path: string, options: { body?: unknown; token?: string; apiKey?: string | null } = {}): Promise<Answer> {
    const started = Date.now();
    const headers: Record<string, string> = {};
    if (options.apiKey !== null) headers['X-API-Key'] = options.apiKey ?? key;
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    try {
      const res = await fetch(`${api.url}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(HANG_MS),
      });
      return { status: res.status, body: (await res.json()) as Answer['body'], retryAfter: res.headers.get('retry-after'), ms: Date.now() - started };
    } catch (error) {
      // A hang: reported as an answer the assertions below refuse, with how long it hung.
      return { status: 0, body: { error: `no answer: ${(error as Error).name}` }, retryAfter: null, ms: Date.now() - started };
    }
  }
  const me = () => call('GET', '/api/auth/me', { token: accessToken });
  const ready = () => call('GET', '/readyz', { apiKey: null });
  let signUps = 0;
  const signUp = () => call('POST', '/api/auth/signup', { body: { email: `user${(signUps += 1)}@example.test`, password: 'correct horse battery' } });

  function expectUnavailable(answer: Answer, withinMs = QUICK_MS): void {
    expect({ status: answer.status, error: answer.body.error }).toEqual({ status: 503, error: 'service_unavailable' });
    expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    expect(answer.ms).toBeLessThan(withinMs);
  }
  /** A lock wait ends at the lock timeout (500 ms), plus a sign-in's work and slack. */
  const LOCK_MS = 1500;

  beforeAll(async () => {
    db = await createTestDatabase(serverUrl);
    relay = await OutageProxy.start(db.url);
    api = await listenRealApp({ DATABASE_URL: relay.url(db.url), ...TIMEOUTS, SVC_RATE_LIMITS: JSON.stringify({ signup: { limit: 1000 }, login: { limit: 1000 }, loginAccount: { limit: 1000 } }) });
    const created = await fetch(`${api.url}/admin/projects`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${REAL_ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Faults' }),
    });
    key = ((await created.json()) as { data: { apiKeys: { production: string } } }).data.apiKeys.production;
    const first = await call('POST', '/api/auth/signup', { body: { email: 'ada@example.test', password: 'correct horse battery' } });
    expect(first.status).toBe(201);
    accessToken = first.body.data!.accessToken as string;
  }, 60_000);

  afterAll(async () => {
    await relay?.up();
    await api?.close();
    await relay?.down();
    await db?.drop();
    // Stopping drains the API and dropping the database waits for its connections to close.
  }, 30_000);

  it('frozen connection: quick 503s with Retry-After (pool and new connections alike), not ready, and recovery once it thaws', async () => {
    expect((await me()).status).toBe(200);
    expect((await ready()).status).toBe(200);

    relay.freeze();
    // More requests than the pool has connections: some wait on a frozen connection (statement
    // timeout), the rest for a connection (acquire timeout) or a new one (connect timeout).
    const answers = await Promise.all([...Array.from({ length: 14 }, me), ...Array.from({ length: 6 }, signUp)]);
    for (const answer of answers) expectUnavailable(answer);
    const notReady = await ready();
    expect(notReady.status).toBe(503);
    expect(notReady.body.error).toBe('service_unavailable');
    expect(notReady.body.message).toMatch(/database/);
    expect(notReady.ms).toBeLessThan(QUICK_MS);
    // Still frozen a moment later: still quick, no queue built up behind the first wave.
    expectUnavailable(await me());

    await relay.up();
    await waitUntil(async () => (await ready()).status === 200, 15_000);
    expect((await me()).status).toBe(200);
    expect((await signUp()).status).toBe(201);
  }, 60_000);

  it('a table lock held elsewhere: 503 within the lock timeout and not ready; ready again once released', async () => {
    const holder = await db.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
      expectUnavailable(await signUp(), LOCK_MS);
      expectUnavailable(await me(), LOCK_MS);
      const notReady = await ready();
      expect(notReady.status).toBe(503);
      expect(notReady.body.message).toMatch(/database.*lock/);
      await holder.query('ROLLBACK');
      expect((await ready()).status).toBe(200);
      expect((await me()).status).toBe(200);
    } finally {
      await endQuietly(holder);
    }
  }, 30_000);

  it('a row lock held elsewhere: writes to that row 503 within the lock timeout; the service stays ready', async () => {
    const holder = await db.connect();
    try {
      await holder.query('BEGIN');
      await holder.query("SELECT id FROM users WHERE email = 'ada@example.test' FOR UPDATE");
      // A sign-in records the time on the user's row.
      expectUnavailable(await call('POST', '/api/auth/login', { body: { email: 'ada@example.test', password: 'correct horse battery' } }), LOCK_MS);
      // One locked row is one user's trouble, not the instance's: it stays in the balancer.
      expect((await ready()).status).toBe(200);
      expect((await signUp()).status).toBe(201);
      await holder.query('ROLLBACK');
      expect((await call('POST', '/api/auth/login', { body: { email: 'ada@example.test', password: 'correct horse battery' } })).status).toBe(200);
    } finally {
      await endQuietly(holder);
    }
  }, 30_000);

  it('the audit log locked elsewhere: a sign-in waits out the lock timeout, answers 503 and opens no session; recorded once released', async () => {
    const holder = await db.connect();
    const sessions = async () => Number((await holder.query<{ n: string }>('SELECT count(*) AS n FROM sessions')).rows[0].n);
    const signIns = async () => Number((await holder.query<{ n: string }>("SELECT count(*) AS n FROM audit_log WHERE type = 'user.signed_in'")).rows[0].n);
    const login = () => call('POST', '/api/auth/login', { body: { email: 'ada@example.test', password: 'correct horse battery' } });
    try {
      const [sessionsBefore, signInsBefore] = [await sessions(), await signIns()];
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE audit_log IN EXCLUSIVE MODE');
      // The session is written first, then its record waits on the lock: the whole sign-in is undone.
      expectUnavailable(await login(), LOCK_MS);
      await holder.query('ROLLBACK');
      expect(await sessions()).toBe(sessionsBefore);
      expect((await login()).status).toBe(200);
      expect([await sessions(), await signIns()]).toEqual([sessionsBefore + 1, signInsBefore + 1]);
    } finally {
      await endQuietly(holder);
    }
  }, 30_000);

  it('a read-only database: writes 503, reads go on, not ready (naming read-only); ready again once writable', async () => {
    await db.setReadOnly(true);
    try {
      // setReadOnly ends the pool's connections, so a probe may first meet one of them dying and
      // report the database unreachable, a true answer for that moment; wait for the read-only one.
      await waitUntil(async () => /read-only/.test(String((await ready()).body.message)), 10_000);
      const notReady = await ready();
      expect(notReady.status).toBe(503);
      expect(notReady.body).toMatchObject({ error: 'service_unavailable' });
      expect(notReady.body.message).toMatch(/database.*read-only/);
      expectUnavailable(await signUp());
      expect((await me()).status).toBe(200);
    } finally {
      await db.setReadOnly(false);
    }
    await waitUntil(async () => (await ready()).status === 200, 10_000);
    expect((await signUp()).status).toBe(201);
  }, 30_000);
});

async function endQuietly(client: Client): Promise<void> {
  await client.query('ROLLBACK').catch(() => undefined);
  await client.end().catch(() => undefined);
}
