import { createServer, type AddressInfo, type Socket } from 'node:net';
import type { SendMailOptions } from 'nodemailer';
import { MailDeliveryError } from '@svc/core';
import { SmtpMailer, toDeliveryError } from './smtp-mailer';
import { sendOverSmtp } from './smtp-send';
import { startTestSmtpServer, type TestSmtpServer } from './testing';
import { mailFixtures } from './testing/mail-fixtures';
import { smtpTransportFixture } from './testing/smtp-transport';

const message = (overrides = {}) => ({
  to: 'ada@example.test',
  subject: 'Your sign-in link',
  text: 'Open https://app.example.test/magic?token=t1&project=p1',
  html: '<a href="https://app.example.test/magic?token=t1&amp;project=p1">Sign in</a>',
  messageId: '<0b6c1f6e-4f7e-4a53-9b0c-2d1f3e4a5b6c@svc>',
  ...overrides,
});

describe('SmtpMailer over a real SMTP conversation on loopback', () => {
  let server: TestSmtpServer;
  let mailer: SmtpMailer;
  beforeAll(async () => {
    server = await startTestSmtpServer();
    mailer = new SmtpMailer(server.url, { from: 'svc <no-reply@svc.test>', connectTimeoutSeconds: 2 });
  });
  afterAll(async () => {
    mailer.close();
    await server.stop();
  });
  beforeEach(() => {
    server.refusal = null;
  });

  it('delivers text and html with the given Message-ID and From', async () => {
    const sent = await mailer.send(message());
    expect(sent.messageId).toBe('<0b6c1f6e-4f7e-4a53-9b0c-2d1f3e4a5b6c@svc>');
    const [received] = server.to('ada@example.test');
    expect(received.parsed.messageId).toBe(sent.messageId);
    expect(received.parsed.subject).toBe('Your sign-in link');
    expect(received.parsed.from?.value).toEqual([{ name: 'svc', address: 'no-reply@svc.test' }]);
    expect(received.parsed.text?.trim()).toBe('Open https://app.example.test/magic?token=t1&project=p1');
    expect(received.parsed.html).toContain('href="https://app.example.test/magic?token=t1&amp;project=p1"');
  });

  it('reports a 550 refusal as permanent and a 451 as transient', async () => {
    server.refusal = { code: 550, message: 'No such user here' };
    const refused = await mailer.send(message({ to: 'ghost@example.test' })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MailDeliveryError);
    expect(refused).toMatchObject({ permanent: true, responseCode: 550 });
    server.refusal = { code: 451, message: 'Try again later' };
    await expect(mailer.send(message())).rejects.toMatchObject({ permanent: false, responseCode: 451 });
  });

  it('reports a server that is down as transient', async () => {
    await server.stop();
    try {
      await expect(mailer.send(message())).rejects.toMatchObject({ name: 'MailDeliveryError', permanent: false });
    } finally {
      await server.start();
    }
    await expect(mailer.send(message({ to: 'back@example.test' }))).resolves.toBeDefined();
  });
});

describe('SmtpMailer connections', () => {
  it('sends many mails over a pool of at most maxConnections connections, reused', async () => {
    const server = await startTestSmtpServer();
    const mailer = new SmtpMailer(server.url, { from: 'svc <no-reply@svc.test>', connectTimeoutSeconds: 2, maxConnections: 3 });
    try {
      const ids = Array.from({ length: 20 }, (_, i) => `<pool-${i}@svc>`);
      await Promise.all(ids.map((id, i) => mailer.send(message({ to: `u${i}@example.test`, messageId: id }))));
      await Promise.all(ids.slice(0, 5).map((id, i) => mailer.send(message({ to: `again${i}@example.test`, messageId: id }))));
      expect(server.received.map((mail) => mail.parsed.messageId).sort()).toEqual([...ids, ...ids.slice(0, 5)].sort());
      expect(server.connections).toBeGreaterThanOrEqual(1);
      expect(server.connections).toBeLessThanOrEqual(3);
    } finally {
      mailer.close();
      await server.stop();
    }
  });
});

describe('SmtpMailer at a server that accepts connections and never answers', () => {
  it('close({ force: true }) ends a send in flight at once, as a transient failure', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const mailer = new SmtpMailer(`smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`, { from: 'svc <no-reply@svc.test>', connectTimeoutSeconds: 20 });
    try {
      const sending = mailer.send(message()).catch((error: unknown) => error);
      while (sockets.size === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const closedAt = Date.now();
      mailer.close({ force: true });
      const failure = await sending;
      // Well before the 20 s the greeting would be waited for.
      expect(Date.now() - closedAt).toBeLessThan(2000);
      expect(failure).toBeInstanceOf(MailDeliveryError);
      expect(failure).toMatchObject({ permanent: false });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('the composed message over SMTP (raw with its envelope) against the streamed one', () => {
  // The SMTP mailer's kind of transport, without the mailer around it, so the fixtures' fixed
  // Date, Message-ID and boundary reach nodemailer on both paths.
  const smtp = smtpTransportFixture();

  it.each(mailFixtures)('delivers %s with the same DATA bytes and envelope', async (_name, mail: SendMailOptions) => {
    const transport = smtp.transport();
    const handed = jest.spyOn(transport, 'sendMail');
    try {
      const streamed = await smtp.delivered(() => transport.sendMail(mail));
      const composed = await smtp.delivered(() => sendOverSmtp(transport, mail));
      // The second send handed nodemailer a finished message, not the parts to stream.
      const options = handed.mock.calls[1][0];
      expect(Buffer.isBuffer(options.raw)).toBe(true);
      expect(options.html).toBeUndefined();
      expect(composed.bytes.equals(streamed.bytes)).toBe(true);
      expect(composed.raw).toBe(streamed.raw);
      expect(composed.envelopeFrom).toBe(streamed.envelopeFrom);
      expect(composed.envelopeTo).toEqual(streamed.envelopeTo);
    } finally {
      handed.mockRestore();
    }
  });

  it('streams what the composition does not cover, as before', async () => {
    const [, mail] = mailFixtures[0];
    const transport = smtp.transport();
    const handed = jest.spyOn(transport, 'sendMail');
    try {
      const received = await smtp.delivered(() => sendOverSmtp(transport, { ...mail, text: Buffer.from('bytes\n') }));
      expect(handed.mock.calls[0][0].raw).toBeUndefined();
      expect(received.parsed.text).toBe('bytes\n');
    } finally {
      handed.mockRestore();
    }
  });
});

describe('toDeliveryError', () => {
  it.each([
    [{ code: 'EENVELOPE', responseCode: 550 }, true],
    [{ code: 'EMESSAGE', responseCode: 554 }, true],
    [{ code: 'EENVELOPE', responseCode: 452 }, false],
    [{ code: 'EAUTH', responseCode: 535 }, false],
    [{ code: 'ECONNECTION' }, false],
    [{ code: 'ETIMEDOUT' }, false],
    [new Error('socket hang up'), false],
  ])('%j -> permanent %s', (error, permanent) => {
    expect(toDeliveryError(error).permanent).toBe(permanent);
  });
});
