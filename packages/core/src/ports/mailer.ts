/** One message ready to go out. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** `<id@domain>`; the same for every attempt of one outbox mail, so receivers can drop repeats. */
  messageId: string;
  headers?: Record<string, string>;
}

/**
 * Hands a message to a mail transport (SMTP server, file mailbox, provider API). Only the outbox
 * worker calls it, never a request, so a slow or dead transport never slows an answer.
 */
export interface Mailer {
  /**
   * Sends the message and resolves with the Message-ID it carried. Rejects with
   * `MailDeliveryError` (`permanent` for a refusal such as SMTP 5xx, transient otherwise); any
   * other rejection is treated as transient.
   */
  send(message: OutgoingMail): Promise<{ messageId: string }>;
  /**
   * Lets go of what the transport holds open (an SMTP mailer's pooled connections). The service
   * calls it once at shutdown, after the outbox worker has stopped; a mailer that holds nothing
   * leaves it out.
   */
  close?(): void | Promise<void>;
}
