import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startApiProcess } from './support/api-process';
import { startRealApp, type RealApp } from './support/real-app';

// What a new user meets first: the address in a browser, a port already taken, the bind address,
// a master key that is not the database's.

describe('GET /', () => {
  let real: RealApp;
  beforeAll(async () => (real = await startRealApp()));
  afterAll(() => real?.close());

  it('answers a small HTML page pointing at the reference, the console and the health endpoints', async () => {
    const res = await request(real.app).get('/').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const hrefs = [...res.text.matchAll(/href="([^"]+)"/g)].map((match) => match[1]);
    expect(hrefs).toEqual(['api/docs', 'api/openapi.json', 'console', 'healthz', 'readyz']);
    expect(res.text).not.toMatch(/<script|style=/);
  });

  it('keeps the JSON 404 for every other unknown path', async () => {
    const res = await request(real.app).get('/index.html').expect(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'No such endpoint.' });
  });
});

describe('starting the API process', () => {
  let dataDir: string;
  const masterKey = randomBytes(32).toString('hex');
  const env = () => ({ SVC_DATA_DIR: dataDir, SVC_BCRYPT_COST: '4', SVC_ADMIN_TOKEN: `admin-${randomBytes(24).toString('hex')}`, SVC_MASTER_KEY: masterKey, LOG_LEVEL: 'info' });
  beforeEach(async () => (dataDir = await mkdtemp(join(tmpdir(), 'svc-start-'))));
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('on a port already in use, says which port and exits 1', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const failure = await startApiProcess({ ...env(), PORT: String(port), SVC_HOST: '127.0.0.1' }).then(
        () => null,
        (error: Error) => error.message,
      );
      expect(failure).toContain('API exited with 1 before listening');
      expect(failure).toContain(`svc cannot start: port ${port} on 127.0.0.1 is already in use: stop what listens there, or set PORT to a free port.`);
      expect(failure).not.toContain('TypeError');
    } finally {
      taken.close();
    }
  }, 60_000);

  it("with a master key that is not the database's, says so and exits 1 instead of failing sign-ins", async () => {
    // The first start (development) creates the demo project and its signing keys under key A.
    const first = await startApiProcess(env());
    await first.stop();
    const failure = await startApiProcess({ ...env(), SVC_MASTER_KEY: randomBytes(32).toString('hex') }).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failure).toContain('API exited with 1 before listening');
    expect(failure).toContain('svc cannot start: SVC_MASTER_KEY does not open the signing keys stored in this database');
    expect(failure).not.toMatch(/at .*\.ts:\d+/);
  }, 90_000);

  it('listens only on SVC_HOST when it is set', async () => {
    // 127.0.0.2 is a loopback address on Linux too, but not 127.0.0.1: a bind to it alone refuses the other.
    const api = await startApiProcess({ ...env(), SVC_HOST: '127.0.0.2' });
    try {
      const port = new URL(api.url).port;
      expect(api.output()).toContain('"host":"127.0.0.2"');
      await request(`http://127.0.0.2:${port}`).get('/healthz').expect(200);
      await expect(request(`http://127.0.0.1:${port}`).get('/healthz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await api.stop();
    }
  }, 60_000);
});
