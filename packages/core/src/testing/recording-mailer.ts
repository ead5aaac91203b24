import { MailDeliveryError } from '../domain/mail';
import type { Mailer, OutgoingMail } from '../ports/mailer';

/**
 * A Mailer that keeps what it was given (`sent`) instead of delivering it. Tell it to fail with
 * `failNext` (queued errors, one per send) or `failAll` (until `recover()`), to play an outage.
 */
export class RecordingMailer implements Mailer {
  readonly sent: OutgoingMail[] = [];
  /** Every call, failed ones included. */
  readonly attempts: OutgoingMail[] = [];
  private readonly failures: Error[] = [];
  private failure: Error | null = null;

  async send(message: OutgoingMail): Promise<{ messageId: string }> {
    this.attempts.push(structuredClone(message));
    const error = this.failures.shift() ?? this.failure;
    if (error) throw error;
    this.sent.push(structuredClone(message));
    return { messageId: message.messageId };
  }

  /** The next sends fail with these errors, in order. */
  failNext(...errors: Error[]): void {
    this.failures.push(...errors);
  }

  /** Every send fails with this error (default: a transient outage) until `recover()`. */
  failAll(error: Error = new MailDeliveryError('connection refused', { permanent: false })): void {
    this.failure = error;
  }

  recover(): void {
    this.failure = null;
    this.failures.length = 0;
  }

  /** The mails sent to `to`, oldest first. */
  sentTo(to: string): OutgoingMail[] {
    return this.sent.filter((m) => m.to === to);
  }
}
