import request from 'supertest';
import { MasterKeySecretBox, BcryptPasswordHasher } from '@svc/adapters-crypto';
import { OutboxWorker, SmtpMailer } from '@svc/adapters-smtp';
import { linksIn, startTestSmtpServer, type TestSmtpServer } from '@svc/adapters-smtp/testing';
import { openStorage, type TypeormStorage } from '@svc/adapters-typeorm';
import { outboxMessageId, sha256Hex } from '@svc/core';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { admin, signUp } from './helpers';
import { buildEmailApp, createMailProject, requestMagicLink, requestReset, verify } from './email-helpers';

// The e-mail flows end to end over a real SMTP conversation on loopback (smtp-server receives,
// mailparser reads), with the real storage (SQLite), the real AES-GCM box and the real worker.
// The worker is driven explicitly and time moves on a FixedClock: nothing sleeps.
describe('e-mail flows over real SMTP', () => {
  let smtp: TestSmtpServer;
  let storage: TypeormStorage;
  let mailer: SmtpMailer;
  let env: ReturnType<typeof setup>;
  const quiet = { info: () => undefined, warn: () => undefined };

  function setup() {
    const rateLimits = structuredClone(DEFAULT_RATE_LIMITS);
    rateLimits.magicLink.limit = 1000;
    const built = buildEmailApp({
      config: { rateLimits },
      deps: {
        projects: storage.projects,
        apiKeys: storage.apiKeys,
        users: storage.users,
        sessions: storage.sessions,
        signingKeys: storage.signingKeys,
        oneTimeTokens: storage.oneTimeTokens,
        outbox: storage.outbox,
        twoFactor: storage.twoFactor,
        passkeys: storage.passkeys,
        secretBox: new MasterKeySecretBox({ masterKey: Buffer.alloc(32, 9) }),
        passwords: new BcryptPasswordHasher({ cost: 4 }),
      },
    });
    const worker = new OutboxWorker({ ...built.deps, mailer }, { logger: quiet });
    return { ...built, worker };
  }

  beforeAll(async () => {
    smtp = await startTestSmtpServer();
    mailer = new SmtpMailer(smtp.url, { from: 'Mail project <no-reply@svc.test>', connectTimeoutSeconds: 2 });
    storage = await openStorage({ sqlitePath: ':memory:' });
    env = setup();
  });
  afterAll(async () => {
    await env?.worker.stop();
    mailer?.close();
    await smtp?.stop();
    await storage?.close();
  });
  beforeEach(() => {
    smtp.refusal = null;
  });

  /** The only link of the only mail received for `to`. */
  const receivedLink = (to: string) => {
    const mails = smtp.to(to);
    expect(mails).toHaveLength(1);
    const [link] = linksIn(mails[0]);
    return new URL(link);
  };

  it('magic link: request, receive over SMTP, verify with the link from the mail', async () => {
    const { app, worker } = env;
    const project = await createMailProject(app);
    await requestMagicLink(app, project.live, { email: 'ada@example.com' }).expect(200);
    expect(await worker.runOnce()).toMatchObject({ sent: 1 });
    const [mail] = smtp.to('ada@example.com');
    expect(mail.parsed.subject).toBe('Your sign-in link for Mail project');
    expect(mail.parsed.html).toContain('https://app.example.test/auth/magic?from=mail&amp;token=ml_live_');
    const { user, accessToken } = (await verify(app, receivedLink('ada@example.com')).expect(200)).body.data;
    const me = await request(app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${accessToken}`).expect(200);
    expect(me.body.data.user).toMatchObject({ id: user.id, email: 'ada@example.com', emailVerified: true });
  });

  it('password reset: the link from the mail sets a new password; old sessions end', async () => {
    const { app, worker } = env;
    const project = await createMailProject(app);
    const old = await signUp(app, project.live, 'bob@example.com', 'old password 1');
    await requestReset(app, project.live, 'bob@example.com').expect(200);
    await worker.runOnce();
    const token = receivedLink('bob@example.com').searchParams.get('token');
    await request(app).post('/api/auth/password/update').set('X-API-Key', project.live).send({ token, newPassword: 'new password 2' }).expect(200);
    await request(app).post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'bob@example.com', password: 'old password 1' }).expect(401);
    await request(app).post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'bob@example.com', password: 'new password 2' }).expect(200);
    const refresh = await request(app).post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: old.refreshToken }).expect(401);
    expect(refresh.body.error).toBe('invalid_refresh_token');
  });

  it('SMTP down during the request: 200 at once, the mail delivered exactly once after SMTP returns', async () => {
    const { app, worker, clock } = env;
    const project = await createMailProject(app);
    await smtp.stop();
    try {
      const started = Date.now();
      await requestMagicLink(app, project.live, { email: 'outage@example.com' }).expect(200);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(await worker.runOnce()).toMatchObject({ claimed: 1, retried: 1 });
    } finally {
      await smtp.start();
    }
    expect(await worker.runOnce()).toMatchObject({ claimed: 0 }); // not due yet: backoff
    clock.advance(30);
    expect(await worker.runOnce()).toMatchObject({ sent: 1 });
    await verify(app, receivedLink('outage@example.com')).expect(200); // exactly one mail arrived
    clock.advance(3600);
    expect(await worker.runOnce()).toMatchObject({ claimed: 0 });
    expect(smtp.to('outage@example.com')).toHaveLength(1);
  });

  it('a crash between send and mark re-sends the same Message-ID, which receivers dedupe', async () => {
    const { app, worker, clock } = env;
    const project = await createMailProject(app);
    await requestMagicLink(app, project.live, { email: 'crash@example.com' }).expect(200);
    // A worker claims and sends, then dies before marking the mail sent.
    const [claimed] = await storage.outbox.claimDue(clock.now(), { limit: 1, leaseSeconds: 120 });
    await mailer.send({ to: claimed.to, subject: 's', text: 't', html: 'h', messageId: outboxMessageId(claimed.id) });
    expect(await worker.runOnce()).toMatchObject({ claimed: 0 }); // its lease still holds
    clock.advance(120);
    expect(await worker.runOnce()).toMatchObject({ sent: 1 });
    const ids = smtp.to('crash@example.com').map((m) => m.parsed.messageId);
    expect(ids).toEqual([outboxMessageId(claimed.id), outboxMessageId(claimed.id)]);
  });

  it('a 550 answer ends dead-lettered, visible in the admin API', async () => {
    const { app, worker, clock } = env;
    const project = await createMailProject(app);
    await requestMagicLink(app, project.live, { email: 'nobody@example.com' }).expect(200);
    smtp.refusal = { code: 550, message: 'No such user here' };
    for (const step of [0, 30, 60]) {
      clock.advance(step);
      await worker.runOnce();
    }
    const dead = (await admin(app).get(`/admin/projects/${project.id}/outbox/dead`).expect(200)).body.data.mails;
    expect(dead).toEqual([expect.objectContaining({ to: 'nobody@example.com', status: 'dead', attempts: 3, lastError: expect.stringContaining('550') })]);
    smtp.refusal = null;
    clock.advance(3600);
    expect(await worker.runOnce()).toMatchObject({ claimed: 0 });
    expect(smtp.to('nobody@example.com')).toEqual([]);
  });

  it('stores no token and no link in clear; production payloads are wiped once sent', async () => {
    const { app, worker } = env;
    const project = await createMailProject(app);
    await requestMagicLink(app, project.sandbox, { email: 'rest@example.com' }).expect(200);
    await requestMagicLink(app, project.live, { email: 'rest@example.com' }).expect(200);
    const queued = await storage.database.query<{ environment: string; sealed_payload: string }>(
      "SELECT environment, sealed_payload FROM mail_outbox WHERE recipient = 'rest@example.com' ORDER BY environment",
    );
    expect(queued.map((row) => row.sealed_payload)).toEqual([expect.stringMatching(/^v1\./), expect.stringMatching(/^v1\./)]);
    await worker.runOnce();
    const tokens = smtp.to('rest@example.com').map((m) => new URL(linksIn(m)[0]).searchParams.get('token')!);
    expect(tokens).toHaveLength(2);
    const outbox = JSON.stringify(await storage.database.query("SELECT * FROM mail_outbox WHERE recipient = 'rest@example.com'"));
    const stored = JSON.stringify(await storage.database.query('SELECT * FROM one_time_tokens'));
    for (const token of tokens) {
      for (const text of [outbox, stored]) expect(text).not.toContain(token.slice(8));
      expect(stored).toContain(sha256Hex(token));
    }
    expect(outbox).not.toContain('app.example.test');
    const after = await storage.database.query<{ environment: string; sealed_payload: string | null }>(
      "SELECT environment, sealed_payload FROM mail_outbox WHERE recipient = 'rest@example.com' ORDER BY environment",
    );
    expect(after.map((row) => [row.environment, row.sealed_payload === null])).toEqual([
      ['production', true],
      ['sandbox', false],
    ]);
  });
});
