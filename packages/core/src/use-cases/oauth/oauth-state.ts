import { AuthError } from '../../errors';
import { environmentPrefix, splitEnvironmentPrefix, type TenantScope } from '../../domain/environment';
import { isUuid, UUID_LENGTH } from '../../domain/ids';
import type { OAuthProvider } from '../../domain/oauth';
import type { Project } from '../../domain/project';
import { isBearerSecret, newBearerSecret, sha256Hex } from '../../domain/secrets';
import { ONE_TIME_TOKEN_TTL_SECONDS } from '../../domain/tokens';
import type { AuthDeps } from '../deps';

/**
 * The `state` sent to the provider reads `os_<live|sbx>_<projectId>_<secret>`, with 256 random
 * bits. The callback carries no API key, so the marker and the project id name the one scope to
 * look in. The token is an opaque bearer secret stored hashed with everything it binds (project,
 * environment, provider, redirect URL, nonce, PKCE verifier): unforgeable like a signature, and
 * unlike one it can be consumed once. Editing any part yields a hash that matches nothing.
 */
const STATE_KIND = 'os';

/** What a state binds; kept server-side only. */
export interface OAuthStateData {
  provider: OAuthProvider;
  /** The customer's URL the browser returns to (already checked against the allow-list). */
  redirectUrl: string;
  /** The caller's own opaque `state`, echoed at the end (docs/decisions.md#contract-clarifications). */
  callerState?: string;
  nonce: string;
  /** The PKCE verifier, sealed: the row alone does not finish a stolen code. */
  sealedCodeVerifier: string;
}

/** A consumed, matching state with its scope and project. */
export type OpenedOAuthState = OAuthStateData & { scope: TenantScope; project: Project; token: string };

export function codeVerifierContext(stateHash: string): string {
  return `oauth-pkce:${stateHash}`;
}

/** Stores a new state for this sign-in and returns the raw token to send to the provider. */
export async function issueOAuthState(
  deps: Pick<AuthDeps, 'clock' | 'random' | 'oneTimeTokens' | 'secretBox'>,
  scope: TenantScope,
  data: Omit<OAuthStateData, 'sealedCodeVerifier'> & { codeVerifier: string },
): Promise<string> {
  const token = `${environmentPrefix(STATE_KIND, scope.environment)}${scope.projectId}_${newBearerSecret(deps.random)}`;
  const tokenHash = sha256Hex(token);
  const { codeVerifier, ...bound } = data;
  const now = deps.clock.now();
  await deps.oneTimeTokens.issue(scope, {
    tokenHash,
    purpose: 'oauth_state',
    userId: null,
    data: { ...bound, sealedCodeVerifier: deps.secretBox.seal(codeVerifier, codeVerifierContext(tokenHash)) },
    createdAt: now,
    expiresAt: new Date(now.getTime() + ONE_TIME_TOKEN_TTL_SECONDS.oauthState * 1000),
  });
  return token;
}

/**
 * Consumes the state of a callback (single use: of two callbacks with one state only one gets
 * past). Missing, malformed, tampered, expired, replayed, or issued for another provider:
 * `400 validation_error`, as nothing in it can be trusted, not even where to send the browser.
 */
export async function consumeOAuthState(deps: Pick<AuthDeps, 'clock' | 'projects' | 'oneTimeTokens'>, provider: OAuthProvider, token: string | undefined): Promise<OpenedOAuthState> {
  const scope = token === undefined ? null : stateScope(token);
  if (!scope || !token) throw invalidState();
  const consumed = await deps.oneTimeTokens.consume(scope, 'oauth_state', sha256Hex(token), deps.clock.now());
  const data = consumed?.data as OAuthStateData | undefined;
  if (!data || data.provider !== provider) throw invalidState();
  const project = await deps.projects.findById(scope.projectId);
  if (!project) throw invalidState();
  return { ...data, scope, project, token };
}

/** The tenant a well-formed state names, or null. */
function stateScope(token: string): TenantScope | null {
  const split = splitEnvironmentPrefix(STATE_KIND, token);
  if (!split) return null;
  const projectId = split.rest.slice(0, UUID_LENGTH);
  const separator = split.rest.charAt(UUID_LENGTH);
  const secret = split.rest.slice(UUID_LENGTH + 1);
  return isUuid(projectId) && separator === '_' && isBearerSecret(secret) ? { projectId, environment: split.environment } : null;
}

function invalidState(): AuthError {
  return new AuthError('validation_error', 'The sign-in state is missing, invalid, expired or already used. Start the sign-in again.');
}
