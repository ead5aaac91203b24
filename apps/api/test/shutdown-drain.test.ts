import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiProcess, type ApiProcess } from './support/api-process';

// SIGTERM while clients keep sending on keep-alive connections: the API must stop taking new
// work, finish what it took, close storage and exit 0 well before its hard timeout (10 s, then
// exit 1). Clients loop on open connections as browsers and proxies do, so a server that only
// waits for its connections to go idle never gets there.

const ADMIN = 'shutdown-test-admin-token-0123456789abcdef';
const WORKERS = 12;

interface Outcome {
  status?: number;
  connection?: string;
  error?: string;
  /** Sent after SIGTERM. */
  late: boolean;
}

describe('SIGTERM under keep-alive load', () => {
  let dir: string;
  let api: ApiProcess;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-shutdown-'));
    api = await startApiProcess({
      SVC_DATA_DIR: dir,
      SVC_BCRYPT_COST: '4',
      SVC_ADMIN_TOKEN: ADMIN,
      SVC_MASTER_KEY: '5'.repeat(64),
      SVC_RATE_LIMITS: JSON.stringify({ login: { limit: 100000 }, loginAccount: { limit: 100000 }, loginAddress: { limit: 100000 }, signup: { limit: 100 } }),
    });
  }, 60_000);
  afterAll(async () => {
    await api?.stop(1000);
    await rm(dir, { recursive: true, force: true });
  });

  it('drains: answers everything it accepted, closes keep-alive connections, exits 0 long before the hard timeout', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: WORKERS });
    const send = (method: string, path: string, headers: Record<string, string>, body?: unknown, via: Agent = agent) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const req = request(`${api.url}${path}`, { method, agent: via, headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) } }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
          res.on('error', reject);
        });
        req.on('error', (error: NodeJS.ErrnoException) => reject(Object.assign(error, { reused: req.reusedSocket })));
        req.end(body ? JSON.stringify(body) : undefined);
      });

    const created = await send('POST', '/admin/projects', { Authorization: `Bearer ${ADMIN}` }, { name: 'Drain' });
    const key = JSON.parse(created.body).data.apiKeys.production as string;
    const credentials = { email: 'ada@example.test', password: 'correct horse battery' };
    const signedUp = await send('POST', '/api/auth/signup', { 'X-API-Key': key }, credentials);
    const token = JSON.parse(signedUp.body).data.accessToken as string;

    let terminatedAt = 0;
    const outcomes: Outcome[] = [];
    // Each worker sends its next request as soon as the last one is answered: /me (the hot path,
    // a read) and sign-in (bcrypt and a write), until the port refuses connections.
    const worker = async (n: number) => {
      for (let i = 0; ; i += 1) {
        const late = terminatedAt !== 0;
        try {
          const res =
            (i + n) % 3 === 0 ? await send('POST', '/api/auth/login', { 'X-API-Key': key }, credentials) : await send('GET', '/api/auth/me', { 'X-API-Key': key, Authorization: `Bearer ${token}` });
          outcomes.push({ status: res.status, connection: res.headers.connection, late });
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
          outcomes.push({ error: `${code}${(error as { reused?: boolean }).reused ? ' (reused socket)' : ''}`, late });
          if (code === 'ECONNREFUSED') return;
        }
        if (terminatedAt !== 0 && Date.now() - terminatedAt > 15_000) return;
      }
    };
    // One more keep-alive connection, used once before the stop and then left idle: a client that
    // sends on it while the API is stopping is answered, with `Connection: close`.
    const idleAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const me = { 'X-API-Key': key, Authorization: `Bearer ${token}` };
    expect((await send('GET', '/api/auth/me', me, undefined, idleAgent)).status).toBe(200);
    const load = Promise.all(Array.from({ length: WORKERS }, (_, n) => worker(n)));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    terminatedAt = Date.now();
    api.signal('SIGTERM');
    // A second signal while draining (a supervisor or a terminal signals the whole process
    // group) must not cut the drain short.
    setTimeout(() => api.signal('SIGTERM'), 20);
    // Within the grace an idle connection gets (drain.ts), well after the signal has been handled.
    const onIdleConnection = new Promise<{ status: number; headers: IncomingHttpHeaders }>((resolve, reject) =>
      setTimeout(() => send('GET', '/api/auth/me', me, undefined, idleAgent).then(resolve, reject), 200),
    );
    const code = await api.exited;
    const exitMs = Date.now() - terminatedAt;
    await load;
    const lateOnIdle = await onIdleConnection;
    agent.destroy();
    idleAgent.destroy();

    expect({ code, stopped: api.output().includes('"msg":"stopped"') }).toEqual({ code: 0, stopped: true });
    expect(exitMs).toBeLessThan(5000);
    // Every request that reached the API was answered, and answered well; the only failures are
    // connections refused once the port had closed.
    expect(outcomes.filter((o) => o.status !== undefined && o.status !== 200)).toEqual([]);
    expect(outcomes.filter((o) => o.error !== undefined && o.error !== 'ECONNREFUSED')).toEqual([]);
    expect(outcomes.filter((o) => !o.late && o.status === 200).length).toBeGreaterThan(50);
    // A request that arrived while stopping was answered, with `Connection: close`. (Whether one of
    // the workers' requests arrives then depends on timing: the stop may catch all of them in flight.)
    expect({ status: lateOnIdle.status, connection: lateOnIdle.headers.connection }).toEqual({ status: 200, connection: 'close' });
  }, 60_000);
});
