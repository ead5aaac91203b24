import type { OutboxMail, SandboxMailView, User } from '@svc/core';

// The outbox as the admin API shows it. A sealed payload never leaves the service: the sandbox
// view shows the opened subject and links, the dead-letter view no content at all.

const isoOrNull = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** Contract shape MagicLinkVerifyUser. */
export function presentMagicLinkUser(user: User) {
  return { id: user.id, email: user.email, role: user.role, meta: user.meta, createdAt: user.createdAt.toISOString() };
}

function presentMailState(mail: OutboxMail) {
  return {
    id: mail.id,
    to: mail.to,
    template: mail.template,
    status: mail.status,
    attempts: mail.attempts,
    lastError: mail.lastError,
    createdAt: mail.createdAt.toISOString(),
    sentAt: isoOrNull(mail.sentAt),
  };
}

/** A sandbox mail with its subject, link(s) and code, for customers' end-to-end tests. */
export function presentSandboxMail(view: SandboxMailView) {
  return { ...presentMailState(view.mail), subject: view.subject, links: view.links, code: view.code };
}

/** A dead-lettered mail: where it was going and why it died; no payload. */
export function presentDeadMail(mail: OutboxMail) {
  return { ...presentMailState(mail), environment: mail.environment };
}
