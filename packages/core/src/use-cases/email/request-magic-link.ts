import type { TenantScope } from '../../domain/environment';
import type { Project } from '../../domain/project';
import { isBanned, newUser, normalizeEmail, type User } from '../../domain/user';
import type { AuthDeps } from '../deps';
import { userLimitFor } from '../sign-up';
import { enqueueLinkMail, type LinkMailDeps } from './enqueue-link-mail';
import { linkBaseOf } from './link-tokens';

export interface MagicLinkRequestInput {
  email: string;
  /** Default true: an unknown address gets a passwordless user, created now (docs/decisions.md#contract-clarifications). */
  createIfNotExists?: boolean;
}

export interface MagicLinkRequestOptions {
  /**
   * Asked once before a user would be created, never for an existing account: false means
   * "this client may not create another user now" (the HTTP layer spends a hit of the `signup`
   * limit of the client's address). Then nobody is created and no mail goes out. Default: allowed.
   */
  mayCreateUser?: () => Promise<boolean>;
}

type MagicLinkDeps = LinkMailDeps & Pick<AuthDeps, 'settings' | 'users'>;

/**
 * `POST /api/auth/magic-link`. Always resolves (no answer tells whether an account exists): unknown
 * addresses with `createIfNotExists: false`, banned users, new users beyond the plan limit and
 * new users the client may not create simply get no mail. Only a project without
 * `magicLinkUrl` is refused, before any lookup.
 */
export async function requestMagicLink(deps: MagicLinkDeps, scope: TenantScope, project: Project, input: MagicLinkRequestInput, options: MagicLinkRequestOptions = {}): Promise<void> {
  await acceptMagicLinkRequest(deps, scope, project, input, options)();
}

/**
 * `POST /api/auth/magic-link` in two steps, for a caller that answers in between: the check that does not
 * depend on any account (the project's `magicLinkUrl`, else `validation_error`) runs now; the
 * returned work (lookup, user created, mail queued) is run after the success answer, so the
 * answer takes the same time for every address (docs/decisions.md, "Mail requests answer first").
 */
export function acceptMagicLinkRequest(deps: MagicLinkDeps, scope: TenantScope, project: Project, input: MagicLinkRequestInput, options: MagicLinkRequestOptions = {}): () => Promise<void> {
  linkBaseOf(project, 'magic_link');
  return async () => {
    const email = normalizeEmail(input.email);
    const existing = await deps.users.findByEmail(scope, email);
    const user = existing ?? (input.createIfNotExists === false ? null : await createPasswordless(deps, scope, project, email, options));
    if (!user || isBanned(user)) return;
    await enqueueLinkMail(deps, scope, project, user, 'magic_link');
  };
}

/**
 * A user without password, counted toward the plan limit like any other production user and,
 * first, toward the client's creation budget. At either limit nobody is created and no mail goes
 * out, yet the caller still hears success.
 */
async function createPasswordless(deps: MagicLinkDeps, scope: TenantScope, project: Project, email: string, options: MagicLinkRequestOptions): Promise<User | null> {
  if (options.mayCreateUser && !(await options.mayCreateUser())) return null;
  const user = newUser({ id: deps.random.uuid(), email, passwordHash: null, emailVerified: false, defaultMeta: project.defaultMeta, createdAt: deps.clock.now() });
  const created = await deps.users.createWithinLimit(scope, user, { limit: userLimitFor(deps, scope, project) });
  if (created.status === 'created') return user;
  // A concurrent request created the same address first: send to that user.
  if (created.status === 'exists') return deps.users.findByEmail(scope, email);
  return null;
}
