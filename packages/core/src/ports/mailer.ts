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
   * calls it at shutdown once the outbox worker has stopped, or earlier with `force` when a send
   * in flight outlasts the shutdown's budget (a server that does not answer): then connections in
   * the middle of a send are dropped too and those sends reject (a transient failure, retried).
   * A mailer that holds nothing leaves it out.
   */
  close?(options?: { force?: boolean }): void | Promise<void>;
}
