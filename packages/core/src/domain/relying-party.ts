import { isOrigin } from './redirect-url';

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
const MAX_RP_ORIGINS = 100;
const MAX_RP_ID = 253;
const MAX_RP_NAME = 200;

/**
 * Why `value` cannot be a project's `webauthn` setting, or null when it can: exactly
 * `{ rpId, rpName, origins }`, with origins on the RP ID. A relying party that could never
 * verify a ceremony is refused when it is set, not at sign-in.
 */
export function webAuthnSettingsProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'webauthn must be an object or null.';
  const { rpId, rpName, origins, ...rest } = value as Partial<WebAuthnSettings> & Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) return `webauthn.${extra} is not a known field (rpId, rpName, origins).`;
  if (typeof rpId !== 'string' || rpId.length === 0 || rpId.length > MAX_RP_ID) return 'webauthn.rpId must be a domain name.';
  if (typeof rpName !== 'string' || rpName.length === 0 || rpName.length > MAX_RP_NAME) {
    return `webauthn.rpName must be a string of 1 to ${MAX_RP_NAME} characters.`;
  }
  if (!Array.isArray(origins) || origins.length === 0 || origins.length > MAX_RP_ORIGINS) {
    return `webauthn.origins must list 1 to ${MAX_RP_ORIGINS} origins.`;
  }
  if (!origins.every(isOrigin)) return 'each webauthn.origins entry must be an origin such as https://app.example.com.';
  if (!HOSTNAME.test(rpId)) return 'webauthn.rpId must be a lower-case domain name without scheme or port.';
  if (!rpName.trim()) return 'webauthn.rpName must not be empty.';
  const foreign = origins.find((origin) => !originBelongsTo(origin, rpId));
  return foreign === undefined ? null : 'each webauthn.origins entry must be on webauthn.rpId or one of its subdomains.';
}
