import type { TenantScope } from '../domain/environment';
import { clientFingerprints, KNOWN_DEVICES_PER_USER, knownSince, type SignInClient } from '../domain/known-device';
import type { AuthDeps, OptionalDeps } from './deps';

/** Without the known-device capability no client is known: every sign-in counts as from elsewhere. */
type KnownClientDeps = Pick<AuthDeps, 'clock'> & OptionalDeps<'knownDevices'>;

/** Stands in for the user of an unknown e-mail, so that case costs the same lookup as a real one. */
const NO_USER = '00000000-0000-0000-0000-000000000000';

/** True when `client` completed a sign-in to `userId` within the retention (docs/security.md). */
export async function isKnownClient(deps: KnownClientDeps, scope: TenantScope, userId: string | null, client: SignInClient | undefined): Promise<boolean> {
  const user = userId ?? NO_USER;
  const fingerprints = client ? clientFingerprints(scope, user, client) : [];
  if (fingerprints.length === 0 || !deps.knownDevices) return false;
  return deps.knownDevices.isKnown(scope, user, fingerprints, { seenSince: knownSince(deps.clock.now()) });
}

/** Records a completed sign-in of `userId` from `client` (its address and device, if named). */
export async function rememberClient(deps: KnownClientDeps, scope: TenantScope, userId: string, client: SignInClient | undefined): Promise<void> {
  const fingerprints = client ? clientFingerprints(scope, userId, client) : [];
  if (fingerprints.length === 0 || !deps.knownDevices) return;
  await deps.knownDevices.remember(scope, userId, fingerprints, { at: deps.clock.now(), keep: KNOWN_DEVICES_PER_USER });
}
