import type { TenantScope } from '../domain/environment';
import type { Project } from '../domain/project';
import { issuedRefreshToken, refreshTokenKey } from '../domain/refresh-token';
import { newBearerSecret } from '../domain/secrets';
import { refreshTokenExpiry, sessionClientOf } from '../domain/session';
import type { SignInClient } from '../domain/known-device';
import type { AccessTokenClaims, TokenBundle } from '../domain/tokens';
import type { User } from '../domain/user';
import type { AuthDeps } from './deps';

type SignDeps = Pick<AuthDeps, 'settings' | 'clock' | 'random' | 'tokens'>;

export async function signAccessToken(deps: SignDeps, scope: TenantScope, project: Project, user: Pick<User, 'id' | 'email' | 'role'>, sessionId: string): Promise<string> {
  const iat = Math.floor(deps.clock.now().getTime() / 1000);
  const claims: AccessTokenClaims = {
    iss: deps.settings.issuer,
    sub: user.id,
    aud: project.id,
    env: scope.environment,
    sid: sessionId,
    email: user.email,
    role: user.role,
    iat,
    exp: iat + project.accessTokenTtlSeconds,
    jti: deps.random.uuid(),
  };
  return deps.tokens.sign(scope, claims);
}

/** Starts a new session (rotation family) for the user and returns its first token bundle. */
export async function startSession(
  deps: SignDeps & Pick<AuthDeps, 'sessions'>,
  scope: TenantScope,
  project: Project,
  user: Pick<User, 'id' | 'email' | 'role'>,
  options: { client?: SignInClient } = {},
): Promise<TokenBundle> {
  return (await openSession(deps, scope, project, user, options)).bundle;
}

/** `startSession`, with the id of the session it started (for the sign-in event). */
export async function openSession(
  deps: SignDeps & Pick<AuthDeps, 'sessions'>,
  scope: TenantScope,
  project: Project,
  user: Pick<User, 'id' | 'email' | 'role'>,
  options: { client?: SignInClient } = {},
): Promise<{ sessionId: string; bundle: TokenBundle }> {
  const now = deps.clock.now();
  const sessionId = deps.random.uuid();
  const refreshToken = issuedRefreshToken(deps.settings.refreshTokenIssueTime === true, now, newBearerSecret(deps.random));
  // The access token is signed while the session is stored: the signature needs only the session's
  // id, and the API signs on libuv's pool (rs256-access-token-codec.ts), so a sign-in waits
  // for the longer of the two rather than both. A session that fails to store throws, and its
  // token is never handed out.
  const [, accessToken] = await Promise.all([
    deps.sessions.create(scope, {
      id: sessionId,
      userId: user.id,
      rotationKey: newBearerSecret(deps.random),
      createdAt: now,
      refreshTokenHash: refreshTokenKey(refreshToken),
      refreshExpiresAt: refreshTokenExpiry(now, now, project),
      client: sessionClientOf(options.client),
    }),
    signAccessToken(deps, scope, project, user, sessionId),
  ]);
  return { sessionId, bundle: { accessToken, refreshToken, expiresIn: project.accessTokenTtlSeconds } };
}
