import type { TenantScope } from '../../domain/environment';
import { emailCodeHash, newEmailCode } from '../../domain/email-code';
import { renderEmail } from '../../domain/email-templates';
import { outboxSealContext, type LinkTemplate, type MailPayload, type NoticeTemplate } from '../../domain/mail';
import type { Project } from '../../domain/project';
import { sha256Hex } from '../../domain/secrets';
import { ONE_TIME_TOKEN_TTL_SECONDS } from '../../domain/tokens';
import type { User } from '../../domain/user';
import type { AuthDeps } from '../deps';
import { buildLink, linkBaseOf, newLinkToken } from './link-tokens';

export type LinkMailDeps = Pick<AuthDeps, 'clock' | 'random' | 'outbox' | 'secretBox'>;

/** The mails that also carry a 6-digit code, redeemable instead of the link (domain/email-code.ts). */
const WITH_CODE: ReadonlySet<LinkTemplate> = new Set(['magic_link', 'email_verification', 'email_change']);

const TTL_SECONDS: Readonly<Record<LinkTemplate, number>> = {
  magic_link: ONE_TIME_TOKEN_TTL_SECONDS.magicLink,
  password_reset: ONE_TIME_TOKEN_TTL_SECONDS.passwordReset,
  email_verification: ONE_TIME_TOKEN_TTL_SECONDS.emailVerification,
  email_change: ONE_TIME_TOKEN_TTL_SECONDS.emailVerification,
};

/**
 * Queues the mail with its single-use link. The token (stored hashed) and the mail (rendered,
 * then sealed, because it carries the raw token) go into the outbox in one transaction, and the
 * user's older open tokens of this kind are superseded in it (docs/operating.md#the-e-mail-outbox). A magic-link mail
 * also carries a code bound to the same token (domain/email-code.ts). Nothing is sent here.
 */
export async function enqueueLinkMail(
  deps: LinkMailDeps,
  scope: TenantScope,
  project: Project,
  user: Pick<User, 'id' | 'email'>,
  template: LinkTemplate,
  options: { data?: Record<string, unknown> } = {},
): Promise<void> {
  const now = deps.clock.now();
  const ttl = TTL_SECONDS[template];
  const expiresAt = new Date(now.getTime() + ttl * 1000);
  const token = newLinkToken(deps.random, template, scope.environment);
  const link = buildLink(linkBaseOf(project, template), token, project.id);
  const tokenHash = sha256Hex(token);
  const code = WITH_CODE.has(template) ? newEmailCode(deps.random) : undefined;
  const rendered = renderEmail(template, project.emailTemplates, { link, projectName: project.name, expiresInMinutes: ttl / 60, code });
  const payload: MailPayload = { ...rendered, links: [link], ...(code ? { code } : {}) };
  const id = deps.random.uuid();
  const sealedPayload = deps.secretBox.seal(JSON.stringify(payload), outboxSealContext(id));
  await deps.outbox.enqueue(
    scope,
    { id, to: user.email, template, sealedPayload, createdAt: now, expiresAt },
    {
      token: {
        token: { tokenHash, purpose: template, userId: user.id, data: { ...options.data, ...(code ? { codeHash: emailCodeHash(tokenHash, code) } : {}) }, createdAt: now, expiresAt },
        supersede: true,
      },
    },
  );
}

/** How long a notice may wait in the outbox; older ones are dropped, not sent. */
const NOTICE_TTL_SECONDS = 24 * 60 * 60;

/** Queues a notice (a mail without a link) to `to`; nothing is sent here. */
export async function enqueueNotice(deps: LinkMailDeps, scope: TenantScope, project: Project, to: string, template: NoticeTemplate): Promise<void> {
  const now = deps.clock.now();
  const rendered = renderEmail(template, project.emailTemplates, { link: '', projectName: project.name, expiresInMinutes: NOTICE_TTL_SECONDS / 60 });
  const payload: MailPayload = { ...rendered, links: [] };
  const id = deps.random.uuid();
  const sealedPayload = deps.secretBox.seal(JSON.stringify(payload), outboxSealContext(id));
  await deps.outbox.enqueue(scope, { id, to, template, sealedPayload, createdAt: now, expiresAt: new Date(now.getTime() + NOTICE_TTL_SECONDS * 1000) });
}
