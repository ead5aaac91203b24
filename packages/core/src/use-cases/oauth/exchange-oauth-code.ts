import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import type { OAuthProvider } from '../../domain/oauth';
import type { Project } from '../../domain/project';
import { newBearerSecret, sha256Hex } from '../../domain/secrets';
import { ONE_TIME_TOKEN_TTL_SECONDS } from '../../domain/tokens';
import { completeFirstFactor, type FirstFactorDeps, type SignInOptions, type SignInResult } from '../complete-first-factor';
import type { AuthDeps } from '../deps';

/** Stores a single-use exchange code for the user (60 s) and returns the raw code. */
export async function issueExchangeCode(deps: Pick<AuthDeps, 'clock' | 'random' | 'oneTimeTokens'>, scope: TenantScope, userId: string, provider: OAuthProvider): Promise<string> {
  const code = newBearerSecret(deps.random);
  const now = deps.clock.now();
  await deps.oneTimeTokens.issue(scope, {
    tokenHash: sha256Hex(code),
    purpose: 'oauth_exchange',
    userId,
    data: { provider },
    createdAt: now,
    expiresAt: new Date(now.getTime() + ONE_TIME_TOKEN_TTL_SECONDS.oauthExchangeCode * 1000),
  });
  return code;
}

/**
 * `POST /api/auth/oauth/token`. The atomic consume makes the code single-use; a code of another project
 * or environment is looked up in the key's scope and so is simply unknown: all of these are
 * `401 invalid_token`. A user deleted since is `404 user_not_found`; then the rule of every
 * password-equivalent path applies: banned -> 403, TOTP on -> the second-factor challenge.
 */
export async function exchangeOAuthCode(
  deps: FirstFactorDeps & Pick<AuthDeps, 'oneTimeTokens'>,
  scope: TenantScope,
  project: Project,
  code: string,
  options: SignInOptions = {},
): Promise<{ provider: string; result: SignInResult }> {
  const consumed = await deps.oneTimeTokens.consume(scope, 'oauth_exchange', sha256Hex(code), deps.clock.now());
  if (!consumed?.userId) throw new AuthError('invalid_token', 'The exchange code is not valid.');
  const user = await deps.users.findById(scope, consumed.userId);
  if (!user) throw new AuthError('user_not_found');
  return { provider: String(consumed.data.provider), result: await completeFirstFactor(deps, scope, project, user, 'oauth', { client: options.client }) };
}
