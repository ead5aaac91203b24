import { outboxSealContext, type MailPayload, type OutboxMail } from '../../domain/mail';
import { normalizeEmail } from '../../domain/user';
import type { AuthDeps } from '../deps';
import { getProject } from '../admin/update-project';

/** A sandbox mail as the sandbox outbox endpoint shows it, link(s) included. */
export interface SandboxMailView {
  mail: OutboxMail;
  subject: string | null;
  links: string[];
  /** The mail's 6-digit code, or null when it carries none. */
  code: string | null;
}

/**
 * The latest mails to a sandbox address, opened: customers' end-to-end tests read their links
 * here instead of running a mail server. Sandbox only: its payloads are kept (sealed) after
 * sending for this purpose, production payloads are wiped and never shown.
 */
export async function listSandboxOutbox(deps: Pick<AuthDeps, 'projects' | 'outbox' | 'secretBox'>, projectId: string, query: { email: string; limit?: number }): Promise<SandboxMailView[]> {
  const project = await getProject(deps, projectId);
  const limit = Math.min(Math.max(query.limit ?? 10, 1), 50);
  const mails = await deps.outbox.listForAddress({ projectId: project.id, environment: 'sandbox' }, normalizeEmail(query.email), limit);
  return mails.map((mail) => {
    const payload = open(deps, mail);
    return { mail, subject: payload?.subject ?? null, links: payload?.links ?? [], code: payload?.code ?? null };
  });
}

/** Dead-lettered mails of a project (both environments), newest first; for the admin API. */
export async function listDeadMails(deps: Pick<AuthDeps, 'projects' | 'outbox'>, projectId: string, limit = 100): Promise<OutboxMail[]> {
  const project = await getProject(deps, projectId);
  return deps.outbox.listDead({ projectId: project.id, limit: Math.min(Math.max(limit, 1), 500) });
}

function open(deps: Pick<AuthDeps, 'secretBox'>, mail: OutboxMail): MailPayload | null {
  if (mail.sealedPayload === null) return null;
  try {
    return JSON.parse(deps.secretBox.open(mail.sealedPayload, outboxSealContext(mail.id))) as MailPayload;
  } catch {
    return null;
  }
}
