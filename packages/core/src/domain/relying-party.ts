/** A project's WebAuthn relying party as set in the admin API (`webauthn` of a project). */
export interface WebAuthnSettings {
  /** The RP ID: a registrable domain (e.g. `example.com`), no scheme or port. */
  rpId: string;
  /** The name authenticators show. */
  rpName: string;
  /** Origins passkey ceremonies may run on; each must be `rpId` or one of its subdomains. */
  origins: string[];
}

/** The relying party ceremonies are checked against. */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

/**
 * The project's relying party: its `webauthn` settings, or else derived from `allowedOrigins`
 * (RP ID = host of the first origin, every allowed origin accepted). Null when neither says
 * where passkeys may be used: we never guess a relying party from a request.
 */
export function relyingPartyOf(project: { name: string; allowedOrigins: string[]; webauthn?: WebAuthnSettings | null }): RelyingParty | null {
  const settings = project.webauthn;
  if (settings) return { id: settings.rpId, name: settings.rpName, origins: [...settings.origins] };
  const first = project.allowedOrigins[0];
  if (first === undefined) return null;
  const id = new URL(first).hostname;
  return { id, name: project.name, origins: project.allowedOrigins.filter((origin) => originBelongsTo(origin, id)) };
}

/** WebAuthn's rule: an origin may use an RP ID equal to its host or a parent domain of it. */
export function originBelongsTo(origin: string, rpId: string): boolean {
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    return false;
  }
  return host === rpId || host.endsWith(`.${rpId}`);
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Why `settings` cannot work as a relying party, or null when it can. */
export function webAuthnSettingsProblem(settings: WebAuthnSettings): string | null {
  if (!HOSTNAME.test(settings.rpId)) return 'webauthn.rpId must be a lower-case domain name without scheme or port.';
  if (!settings.rpName.trim()) return 'webauthn.rpName must not be empty.';
  if (settings.origins.length === 0) return 'webauthn.origins must list at least one origin.';
  const foreign = settings.origins.find((origin) => !originBelongsTo(origin, settings.rpId));
  return foreign === undefined ? null : 'each webauthn.origins entry must be on webauthn.rpId or one of its subdomains.';
}
