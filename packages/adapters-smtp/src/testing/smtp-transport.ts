import { createTransport, type Transporter } from 'nodemailer';
import { startTestSmtpServer, type ReceivedMail, type TestSmtpServer } from './test-smtp-server';

/** A test SMTP server and a pooled transport to it for one describe block (started before its tests, closed after). */
export interface SmtpTransportFixture {
  transport(): Transporter;
  /** What the server received for one send: exactly one mail more than before it. */
  delivered(send: () => Promise<unknown>): Promise<ReceivedMail>;
}

/**
 * The SMTP mailer's kind of transport (a pool of one connection) without the mailer around it, so
 * a test hands nodemailer a message as it is, to a test server on loopback. Call it inside a
 * `describe` block.
 */
export function smtpTransportFixture(): SmtpTransportFixture {
  let server: TestSmtpServer | undefined;
  let transport: Transporter | undefined;
  beforeAll(async () => {
    server = await startTestSmtpServer();
    transport = createTransport({ url: server.url, pool: true, maxConnections: 1, connectionTimeout: 2000, greetingTimeout: 2000 });
  });
  afterAll(async () => {
    transport?.close();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('smtpTransportFixture: used outside its describe block');
    return value;
  };
  return {
    transport: () => started(transport),
    async delivered(send) {
      const received = started(server).received;
      const before = received.length;
      await send();
      expect(received).toHaveLength(before + 1);
      return received[before];
    },
  };
}
