import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { createTestSchema, describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { loadConfig } from '../src/composition/config';
import { createSvcServer, type SvcServer } from '../src/composition/svc-server';
import { isForbiddenAddress, retryAfterOf } from '../src/composition/webhook-transport';
import { REAL_ADMIN_TOKEN, startRealApp } from './support/real-app';

// Webhooks end to end on the real service: a receiver on loopback verifies every delivery with
// the standardwebhooks library; deliveries survive a receiver outage and an API restart under the
// same webhook-id; a 410 turns the endpoint off; a rotated secret signs beside the old one; the
// SSRF guard refuses loopback unless SVC_WEBHOOKS_ALLOW_PRIVATE is set.

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver: records each request and answers `answer` (status, headers). */
async function startReceiver() {
  const received: Received[] = [];
  let answer: { status: number; headers?: Record<string, string> } = { status: 204 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(answer.status, answer.headers).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    answerWith: (status: number, headers?: Record<string, string>) => void (answer = { status, headers }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The service's configuration in these tests: the data folder `dir`, receivers on loopback allowed. */
function serviceConfig(dir: string, env: Record<string, string> = {}) {
  return loadConfig({
    SVC_DATA_DIR: dir,
    SVC_BCRYPT_COST: '4',
    SVC_ADMIN_TOKEN: REAL_ADMIN_TOKEN,
    SVC_MASTER_KEY: '7'.repeat(64),
    LOG_LEVEL: 'silent',
    SVC_WEBHOOKS_ALLOW_PRIVATE: 'true',
    ...env,
  });
}

/** Polls `check` until it holds (deliveries are asynchronous), failing after `ms`. */
async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function webhookCases(database: () => Promise<{ env: Record<string, string>; drop(): Promise<void> }>) {
  let dir: string;
  let db: Awaited<ReturnType<typeof database>>;
  let server: SvcServer;
  let baseUrl: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let project: { id: string; key: string };
  let endpoint: { id: string; secret: string };
  const admin = () => ({ Authorization: `Bearer ${REAL_ADMIN_TOKEN}` });
  const hooks = () => `/admin/projects/${project.id}/environments/production/webhooks`;

  /** The service on a loopback port over the same data folder and database every time. */
  async function startService(): Promise<void> {
    const config = serviceConfig(dir, db.env);
    server = await createSvcServer(config);
    baseUrl = (await server.start({ port: 0, host: '127.0.0.1' })).url!;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-webhooks-'));
    db = await database();
    await startService();
    receiver = await startReceiver();
    const created = await request(baseUrl).post('/admin/projects').set(admin()).send({ name: 'Hooked' }).expect(201);
    project = { id: created.body.data.project.id, key: created.body.data.apiKeys.production };
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const signUp = (email: string) => request(baseUrl).post('/api/auth/signup').set('X-API-Key', project.key).send({ email, password: 'correct horse battery' }).expect(201);
  const deliveriesOf = (type: string) => receiver.received.filter((r) => JSON.parse(r.body).type === type);

  it('creates an endpoint whose secret is shown once; refuses bad input with the envelope', async () => {
    const res = await request(baseUrl)
      .post(hooks())
      .set(admin())
      .send({ url: receiver.url, eventTypes: ['user.created', 'user.banned', 'webhook.test'] })
      .expect(201);
    endpoint = { id: res.body.data.endpoint.id, secret: res.body.data.secret };
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const shown = await request(baseUrl).get(`${hooks()}/${endpoint.id}`).set(admin()).expect(200);
    expect(JSON.stringify(shown.body)).not.toContain(endpoint.secret.slice(6));
    expect(shown.body.data.endpoint).toMatchObject({ url: receiver.url, enabled: true, eventTypes: ['user.created', 'user.banned', 'webhook.test'] });
    for (const body of [{}, { url: 'ftp://x.test/' }, { url: 'https://u:p@x.test/' }, { url: receiver.url, eventTypes: ['user.exploded'] }, { url: receiver.url, enabled: 'yes' }]) {
      expect((await request(baseUrl).post(hooks()).set(admin()).send(body).expect(400)).body.error).toBe('validation_error');
    }
    expect((await request(baseUrl).get(`${hooks()}/not-an-id`).set(admin()).expect(404)).body.error).toBe('not_found');
  });

  it('delivers a subscribed event at once (woken, not polled), signed per Standard Webhooks, with no secret in it', async () => {
    const { body } = await signUp('ada@example.test');
    const [delivery] = await eventually(() => (deliveriesOf('user.created').length ? deliveriesOf('user.created') : undefined));
    const verified = new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
    expect(verified).toMatchObject({ type: 'user.created', data: { userId: body.data.user.id, actor: { type: 'user' } } });
    expect(delivery.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    for (const secret of ['correct horse battery', body.data.accessToken, body.data.refreshToken, project.key, endpoint.secret]) expect(delivery.body).not.toContain(secret);
    // Not subscribed: nothing sent for a sign-in.
    await request(baseUrl).post('/api/auth/login').set('X-API-Key', project.key).send({ email: 'ada@example.test', password: 'correct horse battery' }).expect(200);
    expect(receiver.received.every((r) => JSON.parse(r.body).type !== 'user.signed_in')).toBe(true);
  });

  it('survives a receiver outage and an API restart: delivered later under the same webhook-id', async () => {
    receiver.answerWith(503);
    const before = receiver.received.length;
    await signUp('bob@example.test');
    const failed = await eventually(() => receiver.received[before]);
    expect(JSON.parse(failed.body).type).toBe('user.created');
    const webhookId = failed.headers['webhook-id'];
    await server.stop();
    receiver.answerWith(200);
    await startService();
    // The schedule's second try comes about 5 s after the first.
    const retried = await eventually(() => receiver.received.filter((r) => r.headers['webhook-id'] === webhookId && r !== failed).at(0), 15_000);
    expect(new Webhook(endpoint.secret).verify(retried.body, retried.headers as Record<string, string>)).toMatchObject({ type: 'user.created' });
    const messages = (await request(baseUrl).get(`${hooks()}/${endpoint.id}/messages`).set(admin()).expect(200)).body.data.messages;
    const message = messages.find((m: { webhookId: string }) => m.webhookId === webhookId);
    await eventually(async () => {
      const log = (await request(baseUrl).get(`${hooks()}/messages/${message.id}`).set(admin()).expect(200)).body.data;
      return log.message.status === 'delivered' ? log : undefined;
    }).then((log) => expect(log.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 200]));
  }, 30_000);

  it('redelivers by message id under the same webhook-id, and a rotated secret signs beside the old one', async () => {
    const messages = (await request(baseUrl).get(`${hooks()}/${endpoint.id}/messages`).set(admin()).expect(200)).body.data.messages;
    const delivered = messages.find((m: { status: string }) => m.status === 'delivered');
    const { secret } = (await request(baseUrl).post(`${hooks()}/${endpoint.id}/rotate-secret`).set(admin()).expect(200)).body.data;
    expect(secret).not.toBe(endpoint.secret);
    const before = receiver.received.length;
    await request(baseUrl).post(`${hooks()}/messages/${delivered.id}/redeliver`).set(admin()).expect(202);
    const again = await eventually(() => receiver.received.slice(before).find((r) => r.headers['webhook-id'] === delivered.webhookId));
    // Both the old and the new secret verify during the overlap.
    expect(String(again.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const key of [endpoint.secret, secret]) expect(new Webhook(key).verify(again.body, again.headers as Record<string, string>)).toMatchObject({ type: 'user.created' });
    endpoint.secret = secret;
    // By time range: every finished message of the endpoint created in it.
    const range = `${hooks()}/${endpoint.id}/redeliver`;
    expect((await request(baseUrl).post(range).set(admin()).send({ from: 'then' }).expect(400)).body.error).toBe('validation_error');
    const requeued = await request(baseUrl)
      .post(range)
      .set(admin())
      .send({ from: new Date(0).toISOString(), to: new Date(Date.now() + 60_000).toISOString() })
      .expect(202);
    expect(requeued.body.data.requeued).toBeGreaterThanOrEqual(1);
  });

  it('a 410 turns the endpoint off; turning it on again works; metrics count the deliveries', async () => {
    receiver.answerWith(410);
    await request(baseUrl).post(`${hooks()}/${endpoint.id}/test`).set(admin()).expect(202);
    const off = await eventually(async () => {
      const shown = (await request(baseUrl).get(`${hooks()}/${endpoint.id}`).set(admin()).expect(200)).body.data.endpoint;
      return shown.enabled ? undefined : shown;
    });
    expect(off.disabledReason).toBe('gone');
    receiver.answerWith(204);
    const before = deliveriesOf('user.created').length;
    await signUp('cy@example.test');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(deliveriesOf('user.created')).toHaveLength(before); // off: nothing sent
    const on = await request(baseUrl).patch(`${hooks()}/${endpoint.id}`).set(admin()).send({ enabled: true }).expect(200);
    expect(on.body.data.endpoint).toMatchObject({ enabled: true, disabledReason: null });
    // This process's counters (the outage's failed try was counted by the one before the restart).
    const metrics = (await request(baseUrl).get('/metrics').set(admin()).expect(200)).text;
    expect(metrics).toMatch(/svc_webhook_deliveries_total\{result="sent"\} [1-9]/);
    expect(metrics).toMatch(/svc_webhook_deliveries_total\{result="dead"\} [1-9]/);
    expect(metrics).toMatch(/svc_webhook_queue\{status="dead"\} [1-9]/);
    expect(metrics).toContain('svc_webhook_delivery_lag_seconds_count');
    expect(metrics).toContain('svc_webhook_oldest_due_seconds');
    await request(baseUrl).delete(`${hooks()}/${endpoint.id}`).set(admin()).expect(200);
    expect((await request(baseUrl).get(`${hooks()}/${endpoint.id}`).set(admin()).expect(404)).body.error).toBe('not_found');
  });
}

describe('webhooks on SQLite', () => {
  webhookCases(async () => ({ env: {}, drop: async () => {} }));
});

describeWithPostgres('webhooks on PostgreSQL', (url) => {
  webhookCases(async () => {
    const schema = await createTestSchema(url);
    return { env: { DATABASE_URL: url, SVC_DATABASE_SCHEMA: schema.schema }, drop: schema.drop };
  });
});

describe('stopping while a receiver accepts connections and never answers', () => {
  const sockets = new Set<Socket>();
  const heard: string[] = [];
  const silent = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk) => heard.push(String(chunk)));
    socket.on('close', () => sockets.delete(socket));
  });
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-webhooks-silent-'));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });
  const service = () => createSvcServer(serviceConfig(dir, { SVC_SHUTDOWN_TIMEOUT_MS: '1000' }));
  const auth = { Authorization: `Bearer ${REAL_ADMIN_TOKEN}` };

  it("the service's stop keeps to SVC_SHUTDOWN_TIMEOUT_MS: the delivery in flight is cut, logged as a failed try and retried; nothing is left claimed", async () => {
    const svc = await service();
    await svc.start();
    const project = (await request(svc.handler).post('/admin/projects').set(auth).send({ name: 'Silent' }).expect(201)).body.data.project;
    const hooks = `/admin/projects/${project.id}/environments/production/webhooks`;
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hooks`;
    const endpoint = (await request(svc.handler).post(hooks).set(auth).send({ url }).expect(201)).body.data.endpoint;
    const inFlight = (await request(svc.handler).post(`${hooks}/${endpoint.id}/test`).set(auth).expect(202)).body.data.message;
    // The receiver has the whole request and says nothing (the transport would wait 10 s).
    await eventually(() => heard.join('').includes('"type":"webhook.test"') || undefined, 5000);
    // Queued behind the round in flight, never claimed.
    const waiting = (await request(svc.handler).post(`${hooks}/${endpoint.id}/test`).set(auth).expect(202)).body.data.message;
    const started = Date.now();
    expect(await svc.stop()).toEqual({ drained: true });
    // The budget and some room for a loaded machine, well short of the 10 s the delivery would wait.
    expect(Date.now() - started).toBeLessThan(1000 + 4000);
    // The queue as the stop left it, read by a service that delivers nothing (not started).
    const after = await service();
    try {
      const cut = (await request(after.handler).get(`${hooks}/messages/${inFlight.id}`).set(auth).expect(200)).body.data;
      expect(cut.message).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
      expect(cut.attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: null, error: 'aborted before an answer came (the service was stopping)' })]);
      expect((await request(after.handler).get(`${hooks}/messages/${waiting.id}`).set(auth).expect(200)).body.data.message).toMatchObject({ status: 'pending', attempts: 0 });
    } finally {
      await after.stop();
    }
  }, 30_000);
});

describe('the SSRF guard', () => {
  it('refuses loopback, private, link-local and mapped addresses; allows public ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ]) {
      expect([address, isForbiddenAddress(address)]).toEqual([address, true]);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect([address, isForbiddenAddress(address)]).toEqual([address, false]);
  });

  it('by default refuses a loopback receiver after resolving it, on every try; nothing reaches it', async () => {
    const receiver = await startReceiver();
    const real = await startRealApp();
    try {
      const created = await request(real.app).post('/admin/projects').set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`).send({ name: 'Guarded' }).expect(201);
      const path = `/admin/projects/${created.body.data.project.id}/environments/production/webhooks`;
      const auth = { Authorization: `Bearer ${REAL_ADMIN_TOKEN}` };
      // By name too: localhost resolves to loopback, checked after resolution.
      const byName = receiver.url.replace('127.0.0.1', 'localhost');
      for (const url of [receiver.url, byName]) {
        const endpoint = (await request(real.app).post(path).set(auth).send({ url }).expect(201)).body.data.endpoint;
        const message = (await request(real.app).post(`${path}/${endpoint.id}/test`).set(auth).expect(202)).body.data.message;
        await real.container.webhookWorker.runOnce();
        const log = (await request(real.app).get(`${path}/messages/${message.id}`).set(auth).expect(200)).body.data;
        expect(log.message).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
        expect(log.attempts[0].error).toMatch(/not allowed/);
      }
      expect(receiver.received).toEqual([]);
    } finally {
      await real.close();
      await receiver.close();
    }
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterOf('120')).toBe(120);
    expect(retryAfterOf(new Date(Date.UTC(2030, 0, 1, 0, 1)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(60);
    expect(retryAfterOf('soon')).toBeNull();
    expect(retryAfterOf(undefined)).toBeNull();
  });
});
