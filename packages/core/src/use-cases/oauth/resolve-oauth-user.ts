import type { TenantScope } from '../../domain/environment';
import { identitySubject, OAuthCallbackFailure, type OAuthProvider } from '../../domain/oauth';
import type { Project } from '../../domain/project';
import { isStorableText } from '../../domain/text';
import { isBanned, newUser, normalizeEmail, type User } from '../../domain/user';
import type { OAuthProfile } from '../../ports/oauth-provider-client';
import type { AuthDeps } from '../deps';
import type { MailboxProofDeps } from '../prove-mailbox';
import { userLimitFor } from '../sign-up';
import { proveMailbox } from '../prove-mailbox';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';

export type ResolveDeps = Pick<AuthDeps, 'settings' | 'clock' | 'random' | 'users' | 'identities' | 'sessions'> & MailboxProofDeps;

/**
 * The user a provider account signs in as (docs/decisions.md#social-sign-in): the one it is linked to; else the account
 * with the same address, linked now, but only when the provider says the address is verified;
 * else a new user (within the plan's limit). Refusals become error redirects: a profile with text
 * that cannot be stored is `provider_error`.
 */
export async function resolveOAuthUser(deps: ResolveDeps, scope: TenantScope, project: Project, provider: OAuthProvider, profile: OAuthProfile): Promise<User> {
  // Text no database holds (a NUL, a lone surrogate) is the provider's fault, like a malformed answer.
  if (![profile.issuer, profile.subject, profile.email ?? ''].every(isStorableText)) throw new OAuthCallbackFailure('provider_error');
  const subject = identitySubject(provider, profile);
  const linked = await linkedUser(deps, scope, provider, subject);
  if (linked) return refuseBanned(linked);
  // An unverified address proves nothing about who owns it: never linked, never a new account.
  if (!profile.email || !profile.emailVerified) throw new OAuthCallbackFailure('email_not_verified');
  const email = normalizeEmail(profile.email);
  const user = refuseBanned((await deps.users.findByEmail(scope, email)) ?? (await createUser(deps, scope, project, email)));
  // The provider vouches for the address: a proof of the mailbox like a magic link (no pre-account
  // takeover). It runs before the link, so the identity linked now is the only one left.
  const owner = await proveMailbox(deps, scope, user, 'verified_provider_email');
  const linkedNow = await atomically(deps, async () => {
    if ((await deps.identities.link(scope, { provider, subject, userId: user.id, email, createdAt: deps.clock.now() })) === 'exists') return false;
    await emitEvent(deps, scope, { type: 'identity.linked', userId: user.id, actor: { type: 'user', userId: user.id }, data: { provider } });
    return true;
  });
  // A concurrent callback of the same account linked it first: sign in as whoever it linked.
  if (!linkedNow) return refuseBanned((await linkedUser(deps, scope, provider, subject)) ?? owner);
  return owner;
}

async function linkedUser(deps: ResolveDeps, scope: TenantScope, provider: OAuthProvider, subject: string): Promise<User | null> {
  const identity = await deps.identities.find(scope, provider, subject);
  if (!identity) return null;
  const user = await deps.users.findById(scope, identity.userId);
  // Storage that cannot cascade (memory) may keep the link of a deleted user: drop it, start afresh.
  if (!user) await deps.identities.unlink(scope, provider, subject);
  return user;
}

async function createUser(deps: ResolveDeps, scope: TenantScope, project: Project, email: string): Promise<User> {
  // The provider vouched for the address, so the account starts verified.
  const user = newUser({ id: deps.random.uuid(), email, passwordHash: null, emailVerified: true, defaultMeta: project.defaultMeta, createdAt: deps.clock.now() });
  // OAuth users count toward the plan's limit like any other production user.
  const created = await deps.users.createWithinLimit(scope, user, { limit: userLimitFor(deps, scope, project) });
  if (created.status === 'limit_reached') throw new OAuthCallbackFailure('plan_limit_reached');
  if (created.status === 'created') return user;
  // Lost a race with another sign-up of this address: continue with the account that won.
  const winner = await deps.users.findByEmail(scope, email);
  if (!winner) throw new Error('user vanished right after a conflicting insert');
  return winner;
}

function refuseBanned(user: User): User {
  if (isBanned(user)) throw new OAuthCallbackFailure('user_banned');
  return user;
}
