import type { TenantScope } from './environment';

/** The mails that carry one single-use link (docs/operating.md#the-e-mail-outbox); each is also a one-time token purpose. */
export const LINK_TEMPLATES = ['magic_link', 'password_reset', 'email_verification', 'email_change'] as const;
export type LinkTemplate = (typeof LINK_TEMPLATES)[number];

/** Notices: mails that carry no link, telling the user of a change to the account. */
export const NOTICE_TEMPLATES = ['email_change_notice', 'password_changed', 'refresh_token_reused'] as const;
export type NoticeTemplate = (typeof NOTICE_TEMPLATES)[number];

/** Every mail the service sends. */
export const MAIL_TEMPLATES = [...LINK_TEMPLATES, ...NOTICE_TEMPLATES] as const;
export type MailTemplate = (typeof MAIL_TEMPLATES)[number];

/**
 * Life of an outbox row: `pending` (waiting for its next attempt) -> `sending` (claimed by a
 * worker under a lease) -> `sent`, or back to `pending` after a failure, or `dead` when retrying
 * is pointless. A `sending` row whose lease ran out (its worker crashed) is claimable again.
 */
export const OUTBOX_STATUSES = ['pending', 'sending', 'sent', 'dead'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

/** A mail as the request that caused it writes it. */
export interface NewOutboxMail {
  id: string;
  /** Normalised recipient address. */
  to: string;
  template: MailTemplate;
  /**
   * The rendered mail (subject, text, html, link) sealed with the SecretBox port under the
   * context `outboxSealContext(id)`: it carries a bearer link, so it is never stored in clear.
   */
  sealedPayload: string;
  createdAt: Date;
  /** When the link inside stops working; a mail not sent by then is dead-lettered, not sent. */
  expiresAt: Date;
}

export interface OutboxMail extends Omit<NewOutboxMail, 'sealedPayload'>, TenantScope {
  status: OutboxStatus;
  /** Delivery attempts started so far (a claim counts, so a crash mid-send counts too). */
  attempts: number;
  nextAttemptAt: Date;
  /** Until when the current claimer owns a `sending` row. */
  leaseUntil: Date | null;
  /** Null once wiped: after sending in production, or when dead-lettered. */
  sealedPayload: string | null;
  lastError: string | null;
  messageId: string | null;
  sentAt: Date | null;
}

/** What the sealed payload holds once opened. */
export interface MailPayload {
  subject: string;
  text: string;
  html: string;
  /** The link(s) in the mail, for the sandbox outbox endpoint. */
  links: string[];
  /** The mail's 6-digit code, if it carries one (domain/email-code.ts), for the sandbox outbox endpoint. */
  code?: string;
}

/** Binds a sealed payload to its row: copied into another row it does not open. */
export function outboxSealContext(mailId: string): string {
  return `mail_outbox:${mailId}`;
}

/**
 * The Message-ID every attempt of one outbox mail carries. Stable across retries, so a crash
 * between "sent" and "marked sent" re-sends the same message and receivers drop the duplicate.
 */
export function outboxMessageId(mailId: string): string {
  return `<${mailId}@svc>`;
}

/**
 * A delivery failure. `permanent` means the receiving side refused the mail (SMTP 5xx) and
 * retrying is unlikely to help; anything else (4xx, refused connection, timeout) is transient.
 */
export class MailDeliveryError extends Error {
  readonly permanent: boolean;
  readonly responseCode?: number;

  constructor(message: string, options: { permanent: boolean; responseCode?: number; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'MailDeliveryError';
    this.permanent = options.permanent;
    this.responseCode = options.responseCode;
  }
}
