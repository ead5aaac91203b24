import type { Transporter } from 'nodemailer';
import { createTransport } from './nodemailer-module';
import { DEFAULT_DELIVERY_POLICY, MailDeliveryError, type Mailer, type OutgoingMail } from '@svc/core';
import { nodemailerMessage } from './nodemailer-message';
import { sendOverSmtp } from './smtp-send';

export interface SmtpMailerOptions {
  /** The `From:` of every mail, e.g. `svc <no-reply@example.com>`. */
  from: string;
  /** Seconds to wait for the TCP connection and for the greeting (default 10 each). */
  connectTimeoutSeconds?: number;
  /** Seconds of silence on an open connection before giving up (default 30). */
  socketTimeoutSeconds?: number;
  /**
   * Connections kept open to the server and reused from mail to mail (default: the outbox's
   * concurrency, 10, so a round's sends never queue behind each other for a connection).
   */
  maxConnections?: number;
}

/** SMTP errors that refuse this mail (not the server as a whole): the envelope or the message. */
const MAIL_REFUSALS = new Set(['EENVELOPE', 'EMESSAGE']);

/**
 * The Mailer port over SMTP (nodemailer), configured by `SMTP_URL` (`smtp://user:pass@host:587`,
 * `smtps://...:465`; URL query options such as `?tls.rejectUnauthorized=false` pass through).
 * Timeouts are short: a hung server must fail an attempt well within the outbox's
 * `sendTimeoutSeconds` (the claim's lease is sized from it), not stall the worker for
 * nodemailer's default two minutes. Sends share a pool of connections: a mail costs its
 * SMTP transaction, not a new TCP (and TLS, and AUTH) handshake. Each message is composed before
 * it is handed to the transport, without nodemailer's MIME streams (smtp-send.ts).
 */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly options: SmtpMailerOptions,
  ) {
    const connect = (options.connectTimeoutSeconds ?? 10) * 1000;
    this.transport = createTransport({
      url: smtpUrl,
      pool: true,
      maxConnections: options.maxConnections ?? DEFAULT_DELIVERY_POLICY.concurrency,
      connectionTimeout: connect,
      greetingTimeout: connect,
      socketTimeout: (options.socketTimeoutSeconds ?? 30) * 1000,
    });
  }

  /** Sends with the outbox's Message-ID; SMTP answers map to transient or permanent failures. */
  async send(message: OutgoingMail): Promise<{ messageId: string }> {
    try {
      const info = await sendOverSmtp(this.transport, nodemailerMessage(this.options.from, message));
      return { messageId: info.messageId ?? message.messageId };
    } catch (error) {
      throw toDeliveryError(error);
    }
  }

  /**
   * Closes the pooled connections (the server's shutdown calls it once the worker has stopped).
   * With `force` the connections in the middle of a send are closed too, and those sends reject
   * at once (transient): the shutdown's way past a server that accepts and never answers.
   */
  close(options?: { force?: boolean }): void {
    this.transport.close(options);
  }
}

/**
 * 5xx on the envelope or the message (550 no such user, 552 too big, 554 rejected) is permanent.
 * Everything else is transient: 4xx (421, 450, 451 greylisting), refused or dropped connections,
 * timeouts, and also server-level 5xx such as a failed login (535), which an operator fixes
 * without the queued mail having to die.
 */
export function toDeliveryError(error: unknown): MailDeliveryError {
  const { code, responseCode, message } = (error ?? {}) as { code?: string; responseCode?: number; message?: string };
  const permanent = typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600 && MAIL_REFUSALS.has(code ?? '');
  return new MailDeliveryError(message ?? 'SMTP delivery failed', { permanent, responseCode, cause: error });
}
