import type { TenantScope } from '../../domain/environment';
import type { Project } from '../../domain/project';
import { isBanned, normalizeEmail } from '../../domain/user';
import type { AuthDeps } from '../deps';
import { enqueueLinkMail, type LinkMailDeps } from './enqueue-link-mail';
import { linkBaseOf } from './link-tokens';

/**
 * Contract endpoint 8. Always resolves. Nothing is sent inline: a known address costs one lookup
 * and one outbox insert, an unknown one the lookup alone, so the answer time does not depend on
 * the mail server and barely on the account. Banned users get no mail. Only a project without
 * `passwordResetUrl` is refused, before any lookup.
 */
export async function requestPasswordReset(
  deps: LinkMailDeps & Pick<AuthDeps, 'users'>,
  scope: TenantScope,
  project: Project,
  input: { email: string },
): Promise<void> {
  linkBaseOf(project, 'password_reset');
  const user = await deps.users.findByEmail(scope, normalizeEmail(input.email));
  if (!user || isBanned(user)) return;
  await enqueueLinkMail(deps, scope, project, user, 'password_reset');
}
