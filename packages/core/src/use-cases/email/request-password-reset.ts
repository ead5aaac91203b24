import type { TenantScope } from '../../domain/environment';
import type { Project } from '../../domain/project';
import { isBanned, normalizeEmail } from '../../domain/user';
import type { AuthDeps } from '../deps';
import { enqueueLinkMail, type LinkMailDeps } from './enqueue-link-mail';
import { linkBaseOf } from './link-tokens';

type ResetDeps = LinkMailDeps & Pick<AuthDeps, 'users'>;

/**
 * `POST /api/auth/password/reset`. Always resolves. Nothing is sent inline (the outbox does): a known address
 * costs one lookup and one outbox insert, an unknown one the lookup alone. Banned users get no
 * mail. Only a project without `passwordResetUrl` is refused, before any lookup.
 */
export async function requestPasswordReset(deps: ResetDeps, scope: TenantScope, project: Project, input: { email: string }): Promise<void> {
  await acceptPasswordResetRequest(deps, scope, project, input)();
}

/**
 * `POST /api/auth/password/reset` in two steps, as {@link acceptMagicLinkRequest}: the project's
 * `passwordResetUrl` is checked now; the returned work (lookup, mail queued) runs after the
 * success answer, so a known address answers as fast as an unknown one.
 */
export function acceptPasswordResetRequest(deps: ResetDeps, scope: TenantScope, project: Project, input: { email: string }): () => Promise<void> {
  linkBaseOf(project, 'password_reset');
  return async () => {
    const user = await deps.users.findByEmail(scope, normalizeEmail(input.email));
    if (!user || isBanned(user)) return;
    await enqueueLinkMail(deps, scope, project, user, 'password_reset');
  };
}
