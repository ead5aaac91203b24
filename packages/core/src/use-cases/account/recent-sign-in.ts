import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import type { Project } from '../../domain/project';
import { isRecentSignIn } from '../../domain/session';
import type { AuthDeps, OptionalDeps } from '../deps';
import { acceptTotpCode } from '../two-factor/second-factor-codes';
import type { CurrentSession } from './current-session';

/** What a request may carry to prove a factor again, when its session's sign-in is not recent. */
export interface Reauthentication {
  /** The user's current password. */
  currentPassword?: string;
  /** A current code of the user's authenticator (TOTP on only; recovery codes do not count). */
  totpCode?: string;
}

export type RecentSignInDeps = Pick<AuthDeps, 'clock' | 'sessions' | 'passwords'> & OptionalDeps<'twoFactor' | 'totp' | 'secretBox'>;

/**
 * The gate of every sensitive change (isRecentSignIn): passes when the session's user proved a
 * factor within the project's `recentSignInSeconds`, or when `proof` does so now, which the
 * session then records (the next change within the window needs no proof). A wrong password
 * is `invalid_credentials`, a wrong code `invalid_totp_code`; no proof is
 * `reauthentication_required`. The route's per-user limit bounds guesses.
 */
export async function requireRecentSignIn(deps: RecentSignInDeps, scope: TenantScope, project: Project, current: CurrentSession, proof: Reauthentication = {}): Promise<void> {
  const now = deps.clock.now();
  if (proof.currentPassword === undefined && proof.totpCode === undefined) {
    const session = await deps.sessions.findSession(scope, current.sessionId);
    if (session && isRecentSignIn(session.authenticatedAt, now, project)) return;
    throw new AuthError('reauthentication_required');
  }
  if (proof.currentPassword !== undefined) await checkPassword(deps, current, proof.currentPassword);
  else await checkTotpCode(deps, scope, current, proof.totpCode ?? '');
  await deps.sessions.recordAuthentication(scope, current.sessionId, now);
}

async function checkPassword(deps: Pick<AuthDeps, 'passwords'>, current: CurrentSession, password: string): Promise<void> {
  const hash = current.user.passwordHash;
  // A user without a password costs the same dummy compare as a wrong one.
  const matches = hash ? await deps.passwords.verify(password, hash) : await deps.passwords.verifyDummy(password);
  if (!matches) throw new AuthError('invalid_credentials', 'The current password is not correct.');
}

async function checkTotpCode(deps: RecentSignInDeps, scope: TenantScope, current: CurrentSession, code: string): Promise<void> {
  const { clock, twoFactor, totp, secretBox } = deps;
  const enrollment = twoFactor && totp && secretBox ? await twoFactor.findTotp(scope, current.user.id) : null;
  if (!twoFactor || !totp || !secretBox || enrollment?.status !== 'enabled') {
    throw new AuthError('reauthentication_required', 'TOTP is not enabled: give the current password instead.');
  }
  if (!(await acceptTotpCode({ clock, twoFactor, totp, secretBox }, scope, enrollment, code))) throw new AuthError('invalid_totp_code');
}
