import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One message as the server received it over SMTP, parsed back with mailparser. */
export interface ReceivedMail {
  /** MAIL FROM's address. */
  envelopeFrom: string;
  envelopeTo: string[];
  /** DATA as received, with the transport's dot-stuffing undone and without the final `.` line. */
  bytes: Buffer;
  raw: string;
  parsed: ParsedMail;
}

/** A refusal to play at RCPT TO: e.g. `{ code: 550, message: 'No such user' }` or a 451. */
export type SmtpRefusal = { code: number; message: string } | null;

/**
 * A real SMTP server on loopback (smtp-server) for tests: no TLS, no auth, every message parsed
 * and kept in `received`. `refuseRecipients` makes it answer RCPT TO with an SMTP error, `stop()`
 * and `start()` (on the same port) play an outage.
 */
export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  refusal: SmtpRefusal = null;
  /** Connections accepted (since the first start): a pooling client opens few for many mails. */
  connections = 0;
  /** Connections open now: a pooling client keeps some open between mails until it is closed. */
  open = 0;
  private server: SMTPServer | null = null;
  private boundPort = 0;

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.boundPort}`;
  }

  /** Listens on `port` (default: the previous port, or an ephemeral one the first time). */
  async start(port = this.boundPort): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      // stop() closes connections still open (a pooling client's idle ones) after 50 ms, as an outage does.
      closeTimeout: 50,
      onConnect: (_session, done) => {
        this.connections += 1;
        this.open += 1;
        done();
      },
      onClose: () => {
        this.open -= 1;
      },
      onRcptTo: (_address, _session, done) => {
        if (!this.refusal) return done();
        done(Object.assign(new Error(this.refusal.message), { responseCode: this.refusal.code }));
      },
      onData: (stream, session, done) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const raw = bytes.toString('utf8');
          const { mailFrom, rcptTo } = session.envelope;
          simpleParser(raw).then(
            (parsed) => {
              this.received.push({ envelopeFrom: mailFrom ? mailFrom.address : '', envelopeTo: rcptTo.map((r) => r.address), bytes, raw, parsed });
              done();
            },
            (error: Error) => done(error),
          );
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.boundPort = (server.server.address() as AddressInfo).port;
  }

  /** Stops listening and closes open connections; `start()` brings it back on the same port. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The messages received for `address`, oldest first. */
  to(address: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.envelopeTo.includes(address));
  }
}

/** Starts a TestSmtpServer on an ephemeral loopback port. */
export async function startTestSmtpServer(): Promise<TestSmtpServer> {
  const server = new TestSmtpServer();
  await server.start(0);
  return server;
}

/** The links (href values and bare URLs) in a received mail's text part. */
export function linksIn(mail: ReceivedMail): string[] {
  return [...(mail.parsed.text ?? '').matchAll(/https?:\/\/\S+/g)].map((m) => m[0]);
}

/** Parses a stored message (e.g. an `.eml` of the file mailbox) the way the server parses received ones. */
export function parseMail(raw: Buffer | string): Promise<ParsedMail> {
  return simpleParser(raw);
}
