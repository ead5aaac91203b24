import { AuthError } from '../errors';
import type { TenantScope } from '../domain/environment';
import type { Project } from '../domain/project';
import { issuedRefreshToken, refreshTokenKey, refreshTokenUnder } from '../domain/refresh-token';
import { hmacBase64Url } from '../domain/secrets';
import { refreshTokenExpiry, sessionEndsAt, type RefreshTokenRecord } from '../domain/session';
import type { TokenBundle } from '../domain/tokens';
import { isBanned } from '../domain/user';
import type { User } from '../domain/user';
import type { AuthDeps, OptionalDeps } from './deps';
import { enqueueNotice } from './email/enqueue-link-mail';
import { atomically } from './atomically';
import { emitEvent } from './events/record-event';
import { signAccessToken } from './issue-tokens';

type RefreshDeps = Pick<AuthDeps, 'settings' | 'clock' | 'random' | 'sessions' | 'tokens'> & OptionalDeps<'events' | 'outbox' | 'secretBox' | 'unitOfWork'>;

export interface RefreshOptions {
  /**
   * A check the caller started before calling (the HTTP layer's rate limit): it rejects to refuse
   * the request. It is awaited before anything is decided or changed, so the refusal stands as if
   * it had run first; only the token's read (no change) runs beside it.
   */
  admitted?: Promise<void>;
}

/**
 * `POST /api/auth/refresh`. The presented token is consumed by the store's atomic rotation primitive.
 * A successor's secret is derived as HMAC(session rotation key, presented token): only a holder of
 * the presented token can know it, and the grace window can hand a racing tab the very same
 * successor (with the issue time the winner stored) without the raw token ever being stored.
 * Whether a reuse falls in that window is decided by the rotation on the state it saw
 * (unclaimedRotationResult), never on the read made before it.
 */
export async function refreshTokens(deps: RefreshDeps, scope: TenantScope, project: Project, refreshToken: string, options: RefreshOptions = {}): Promise<TokenBundle> {
  const presentedHash = refreshTokenKey(refreshToken);
  // The holder is read with the token (one round trip where the store can), before the rotation.
  const reading = deps.sessions.findRefreshTokenWithHolder(scope, presentedHash);
  if (options.admitted) {
    // The read changes nothing, so it may run while the caller's check is still under way; the
    // check's refusal comes first whatever the read finds (or fails with).
    reading.catch(() => undefined);
    await options.admitted;
  }
  const found = await reading;
  if (!found) throw new AuthError('invalid_refresh_token');
  const { token: record, user } = found;
  // A token of an ended session (logout, ban, password reset, an earlier replay) is dead, not a
  // replay: revoking the user's other sessions for it would let anyone holding an old token log
  // the owner out of every device again and again.
  if (record.sessionRevokedAt) throw new AuthError('invalid_refresh_token');
  const now = deps.clock.now();
  // The absolute session lifetime: past it the session ends for good (not a replay, so the
  // user's other sessions stay), whatever its tokens' own expiry says.
  if (now >= sessionEndsAt(record.sessionCreatedAt, project)) {
    // The revocation and its record are one unit of work: unrecorded, the session is left for the next try.
    await atomically(deps, async () => {
      if (await deps.sessions.revoke(scope, record.sessionId, now)) {
        await emitEvent(deps, scope, { type: 'session.revoked', userId: record.userId, data: { sessionId: record.sessionId, why: 'session_ended' } });
      }
    });
    throw new AuthError('invalid_refresh_token', undefined, { details: { reason: 'session_ended' } });
  }
  const secret = hmacBase64Url(record.rotationKey, refreshToken);
  const successor = issuedRefreshToken(deps.settings.refreshTokenIssueTime === true, now, secret);
  // The access token is signed while the rotation is under way (its claims are known from the
  // read; a sign may take a trip to another thread), and handed out only if the rotation succeeds:
  // a refused refresh drops it unseen. None is signed for a banned user (docs/decisions.md).
  const signing = isBanned(user) ? null : signAccessToken(deps, scope, project, user, record.sessionId);
  // A failed sign is answered after the rotation (below); until then it is no unhandled rejection.
  signing?.catch(() => undefined);
  const result = await deps.sessions.rotate(scope, {
    presentedHash,
    successorHash: refreshTokenKey(successor),
    now,
    expiresAt: refreshTokenExpiry(now, record.sessionCreatedAt, project),
    reuseGraceSeconds: project.refreshReuseGraceSeconds,
  });
  if (result.status === 'unknown') throw new AuthError('invalid_refresh_token');
  if (result.status === 'reused') await answerReplay(deps, scope, project, record, user, now);
  // A banned user (no token signed) is refused after the rotation, as before: the token is used
  // up, not left to retry.
  if (signing === null) throw new AuthError('invalid_refresh_token');
  const accessToken = await signing;
  // A racer inside the grace window gets the successor as the winner issued it.
  const issued = result.status === 'reissued' ? refreshTokenUnder(result.successorHash, secret) : successor;
  return { accessToken, refreshToken: issued, expiresIn: project.accessTokenTtlSeconds };
}

/**
 * A used token presented again: someone holds a copy. Ends every session of the user (the
 * contract's rule) or, where the project chose so, only the token's own session; the revocation
 * stands although the request fails, and the event is emitted either way. Where the project asks
 * for it (and the service has mail), the user is told by a notice. Always throws.
 */
async function answerReplay(deps: RefreshDeps, scope: TenantScope, project: Project, record: Pick<RefreshTokenRecord, 'userId' | 'sessionId'>, user: Pick<User, 'email'>, now: Date): Promise<never> {
  const response = project.refreshReuseResponse;
  // The revocation, its record and the mail are one unit of work, committed before the refusal.
  await atomically(deps, async () => {
    const sessionsRevoked = response === 'revoke_session' ? Number(await deps.sessions.revoke(scope, record.sessionId, now)) : await deps.sessions.revokeAllForUser(scope, record.userId, now);
    await emitEvent(deps, scope, { type: 'refresh_token.reused', userId: record.userId, data: { sessionId: record.sessionId, response, sessionsRevoked } });
    const { clock, random, outbox, secretBox } = deps;
    if (project.refreshReuseNotice && sessionsRevoked > 0 && outbox && secretBox) {
      await enqueueNotice({ clock, random, outbox, secretBox }, scope, project, user.email, 'refresh_token_reused');
    }
  });
  throw new AuthError('invalid_refresh_token');
}
