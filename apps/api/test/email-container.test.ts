import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { linksIn, parseMail, startTestSmtpServer, type TestSmtpServer } from '@svc/adapters-smtp/testing';
import { createApp } from '../src/http/app';
import { loadConfig } from '../src/composition/config';
import { buildContainer, type Container } from '../src/composition/container';
import { createSvcServer } from '../src/composition/svc-server';
import { resolveSecrets } from '../src/composition/dev-secrets';
import { createLogger } from '../src/composition/logger';
import { createMailProject, requestMagicLink } from './email-helpers';
import { ADMIN_TOKEN } from './helpers';

// The composition root's mail wiring: without SMTP_URL a file mailbox under the data folder,
// with it SMTP; a request's enqueue wakes the started worker.
describe('container mail wiring', () => {
  let dir: string;
  let container: Container | undefined;
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }) });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-mail-container-'));
    lines.length = 0;
  });
  afterEach(async () => {
    await container?.close();
    container = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  async function start(env: Record<string, string> = {}) {
    const secrets = await resolveSecrets(loadConfig({ SVC_DATA_DIR: dir, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_BCRYPT_COST: '4', SVC_BASE_URL: 'https://auth.example.test', ...env }));
    container = await buildContainer(secrets.config, { logger });
    return createApp({ ...container, logger, config: secrets.config });
  }

  it('embedded default: each mail is an .eml file under SVC_DATA_DIR/mail; in development the log also carries its link, on one line', async () => {
    const app = await start();
    const project = await createMailProject(app);
    await requestMagicLink(app, project.sandbox, { email: 'ada@example.com' }).expect(200);
    expect(await container!.outboxWorker.runOnce()).toMatchObject({ sent: 1 });
    const [file] = (await readdir(join(dir, 'mail'))).filter((name) => name.endsWith('.eml'));
    const mail = await parseMail(await readFile(join(dir, 'mail', file)));
    const link = /https:\/\/\S+/.exec(mail.text ?? '')![0];
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; links?: string[] }).find((line) => line.links);
    expect(logged?.links).toEqual([link]);
    expect(logged?.msg).toContain(link);
    expect(await readFile(join(dir, 'mail', `${file}.links.txt`), 'utf8')).toBe(`${link}\n`);
    expect(lines.join('')).not.toContain('ada@example.com');
  });

  it('in production the file mailbox log names the file, never the token', async () => {
    const app = await start({ NODE_ENV: 'production', SVC_MASTER_KEY: '5'.repeat(64) });
    const project = await createMailProject(app);
    await requestMagicLink(app, project.sandbox, { email: 'ada@example.com' }).expect(200);
    expect(await container!.outboxWorker.runOnce()).toMatchObject({ sent: 1 });
    const [file] = await readdir(join(dir, 'mail'));
    const mail = await parseMail(await readFile(join(dir, 'mail', file)));
    expect(mail.from?.text).toContain('no-reply@auth.example.test');
    const link = new URL(/https:\/\/\S+/.exec(mail.text ?? '')![0]);
    const token = link.searchParams.get('token')!;
    expect(token).toMatch(/^ml_sbx_/);
    const log = lines.join('');
    expect(log).toContain(join(dir, 'mail', file));
    expect(log).not.toContain(token.slice(7));
    expect(log).not.toContain('ada@example.com');
  });

  describe('with SMTP_URL', () => {
    let smtp: TestSmtpServer;
    beforeAll(async () => {
      smtp = await startTestSmtpServer();
    });
    afterAll(() => smtp.stop());

    it('sends over SMTP, at once after the request (the enqueue wakes the running worker)', async () => {
      const app = await start({ SMTP_URL: smtp.url, SMTP_FROM: 'Shop <hello@shop.example>' });
      container!.outboxWorker.start();
      const project = await createMailProject(app);
      await requestMagicLink(app, project.live, { email: 'bob@example.com' }).expect(200);
      for (let waited = 0; smtp.to('bob@example.com').length === 0; waited += 10) {
        if (waited > 3000) throw new Error('no mail within 3 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const [mail] = smtp.to('bob@example.com');
      expect(mail.parsed.from?.value).toEqual([{ name: 'Shop', address: 'hello@shop.example' }]);
      expect(linksIn(mail)[0]).toMatch(/^https:\/\/app\.example\.test\/auth\/magic\?from=mail&token=ml_live_/);
      // The pooled connection stays open between mails; shutdown closes it (Mailer.close).
      expect(smtp.open).toBeGreaterThan(0);
      await container!.close(); // stops the worker first, then the mailer's pool, then storage
      container = undefined;
      for (let waited = 0; smtp.open > 0; waited += 10) {
        if (waited > 3000) throw new Error(`${smtp.open} SMTP connection(s) still open 3 s after shutdown`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    });
  });

  it("close() gives answered requests' work what is left of SVC_SHUTDOWN_TIMEOUT_MS; past it, work still running is logged as not done", async () => {
    const app = await start({ SVC_SHUTDOWN_TIMEOUT_MS: '1000' });
    const project = await createMailProject(app);
    // A real request's work ends in time and its mail is queued; another job never ends (a
    // statement stuck on a lock, say).
    await requestMagicLink(app, project.live, { email: 'gus@example.com' }).expect(200);
    container!.afterAnswer.run('password_reset', 'req-stuck', () => new Promise<void>(() => undefined));
    const started = Date.now();
    const closing = container!.close();
    container = undefined;
    const outcome = await Promise.race([closing.then(() => 'closed'), new Promise((resolve) => setTimeout(resolve, 10_000, 'still waiting after 10 s'))]);
    expect(outcome).toBe('closed');
    // The budget and some room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(1000 + 4000);
    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string; requestId?: string; kind?: string }).filter((line) => /accepted request/.test(line.msg));
    expect(logged.map((line) => [line.level, line.requestId, line.kind, line.msg])).toEqual([
      [50, 'req-stuck', 'password_reset', 'accepted request not finished at shutdown; its mail may not be queued'],
    ]);
    await start();
    expect(await container!.outboxStats!()).toMatchObject({ pending: 1 });
  }, 30_000);

  describe('with SMTP_URL at a server that accepts connections and never answers', () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    beforeAll(() => new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve)));
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });

    it('stops within SVC_SHUTDOWN_TIMEOUT_MS while a send hangs, and the mail stays queued for a retry', async () => {
      const env = { SMTP_URL: `smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`, SVC_SHUTDOWN_TIMEOUT_MS: '1000' };
      const app = await start(env);
      container!.outboxWorker.start();
      const project = await createMailProject(app);
      await requestMagicLink(app, project.live, { email: 'carol@example.com' }).expect(200);
      for (let waited = 0; sockets.size === 0; waited += 10) {
        if (waited > 3000) throw new Error('the worker did not connect within 3 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // The send waits for a greeting that never comes (the mailer gives up after 10 s).
      const started = Date.now();
      await container!.close();
      container = undefined;
      // The budget and some room for a loaded machine, well short of the 10 s the send would wait.
      expect(Date.now() - started).toBeLessThan(1000 + 4000);
      // Not lost, not left claimed: pending, for this instance's next start or another instance.
      await start(env);
      expect(await container!.outboxStats!()).toMatchObject({ pending: 1, sending: 0, sent: 0, dead: 0 });
    }, 30_000);

    it("the service's stop (createSvcServer) keeps to SVC_SHUTDOWN_TIMEOUT_MS too, every mail of the round left queued", async () => {
      const smtpUrl = `smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const svc = await createSvcServer({ dataDir: dir, smtpUrl, shutdownTimeoutMs: 1000, adminToken: ADMIN_TOKEN, bcryptCost: 4, baseUrl: 'https://auth.example.test', logLevel: 'silent' });
      await svc.start();
      const app = svc.app as Parameters<typeof createMailProject>[0];
      const project = await createMailProject(app);
      for (const email of ['dan@example.com', 'eve@example.com', 'fay@example.com']) await requestMagicLink(app, project.live, { email }).expect(200);
      for (let waited = 0; sockets.size === 0; waited += 10) {
        if (waited > 3000) throw new Error('the worker did not connect within 3 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const started = Date.now();
      expect(await svc.stop()).toEqual({ drained: true });
      expect(Date.now() - started).toBeLessThan(1000 + 4000);
      await start({ SMTP_URL: smtpUrl });
      expect(await container!.outboxStats!()).toMatchObject({ pending: 3, sending: 0, sent: 0, dead: 0 });
    }, 30_000);
  });
});
