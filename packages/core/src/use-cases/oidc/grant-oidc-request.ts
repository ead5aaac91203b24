import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import type { Project } from '../../domain/project';
import { sha256Hex } from '../../domain/secrets';
import { isBanned } from '../../domain/user';
import type { PendingOidcAuthorization } from '../../ports/oidc-interactions';
import type { OidcDeps } from './oidc-deps';
import { assertOidcPlan } from './oidc-login';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';

/** OidcGrantRequest of the contract. */
export interface OidcGrantInput {
  requestToken: string;
  approved: boolean;
  userId?: string;
  scopes?: string[];
}

/**
 * `POST /api/auth/oidc/grant`. Order of checks: plan (403 plan_upgrade_required), then
 * the request token (401 invalid_token for unknown, forged, used, expired or another
 * environment's token: the same answer the contract gives for a bad OAuth exchange code), then the
 * decision. Nothing is consumed until every check passed, so a 400 lets the login page retry; the
 * consume itself is atomic, so of two concurrent calls exactly one finishes the flow.
 */
export async function grantOidcRequest(
  deps: Pick<OidcDeps, 'clock' | 'users' | 'oneTimeTokens' | 'oidcClients' | 'oidcInteractions' | 'events' | 'unitOfWork'>,
  key: { scope: TenantScope; project: Project },
  input: OidcGrantInput,
): Promise<{ redirectUrl: string }> {
  assertOidcPlan(key.project);
  const tokenHash = sha256Hex(input.requestToken);
  const pending = await pendingAuthorization(deps, key.scope, tokenHash);
  const { projectId } = key.scope;
  if (!input.approved) {
    await atomically(deps, async () => {
      await redeem(deps, key.scope, tokenHash);
      await emitEvent(deps, key.scope, { type: 'oidc.grant', data: { clientId: pending.clientId, approved: false, scopes: [] } });
    });
    return { redirectUrl: await deps.oidcInteractions.deny(projectId, pending.uid) };
  }
  const scopes = grantedScopes(pending.requestedScopes, input.scopes);
  const userId = await approvableUser(deps, key.scope, input.userId);
  // The token's redemption and its record are one unit of work: unrecorded, the request token stays open for another try.
  await atomically(deps, async () => {
    await redeem(deps, key.scope, tokenHash);
    await emitEvent(deps, key.scope, { type: 'oidc.grant', userId, actor: { type: 'user', userId }, data: { clientId: pending.clientId, approved: true, scopes } });
  });
  return { redirectUrl: await deps.oidcInteractions.approve(projectId, pending.uid, { userId, scopes }) };
}

/** The open request token's authorization, still waiting, of a client of the key's environment. */
async function pendingAuthorization(deps: Pick<OidcDeps, 'clock' | 'oneTimeTokens' | 'oidcClients' | 'oidcInteractions'>, scope: TenantScope, tokenHash: string): Promise<PendingOidcAuthorization> {
  const token = await deps.oneTimeTokens.find(scope, 'oidc_request', tokenHash);
  if (!token || token.consumedAt || token.expiresAt <= deps.clock.now() || typeof token.data.uid !== 'string') throw invalidToken();
  const pending = await deps.oidcInteractions.pending(scope.projectId, token.data.uid);
  if (!pending) throw invalidToken();
  // The token was stored in the client's environment; checked again so a moved or deleted
  // client can never finish a flow with the other environment's users.
  const client = await deps.oidcClients.find(scope.projectId, pending.clientId);
  if (!client || client.environment !== scope.environment) throw invalidToken();
  return pending;
}

/** Rule 3: given scopes are a subset of the requested ones and include openid; none given = all requested. */
export function grantedScopes(requested: readonly string[], given: readonly string[] | undefined): string[] {
  const scopes = [...new Set(given ?? requested)];
  const foreign = scopes.find((scope) => !requested.includes(scope));
  if (foreign !== undefined) throw new AuthError('validation_error', `scopes must be a subset of the requested scopes (${requested.join(' ')}).`);
  if (!scopes.includes('openid')) throw new AuthError('validation_error', 'scopes must include openid.');
  return scopes;
}

/** The approving user: named, existing in the key's (= the client's) environment, not banned. */
async function approvableUser(deps: Pick<OidcDeps, 'users'>, scope: TenantScope, userId: string | undefined): Promise<string> {
  if (!userId) throw new AuthError('validation_error', 'userId is required when approved is true.');
  const user = await deps.users.findById(scope, userId);
  if (!user) throw new AuthError('user_not_found');
  if (isBanned(user)) throw new AuthError('user_banned');
  return user.id;
}

async function redeem(deps: Pick<OidcDeps, 'clock' | 'oneTimeTokens'>, scope: TenantScope, tokenHash: string): Promise<void> {
  if (!(await deps.oneTimeTokens.consume(scope, 'oidc_request', tokenHash, deps.clock.now()))) throw invalidToken();
}

function invalidToken(): AuthError {
  return new AuthError('invalid_token', 'The request token is not valid.');
}
