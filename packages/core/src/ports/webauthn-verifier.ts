import type { Passkey } from '../domain/passkey';
import type { RelyingParty } from '../domain/relying-party';

/** What a verified registration tells us about the new credential. */
export interface VerifiedCredential {
  credentialId: string;
  /** COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
}

/**
 * The WebAuthn ceremonies (W3C Web Authentication, level 2+), kept behind a port so core carries
 * no library. `challenge` is always the base64url string core generated and will compare; the
 * options returned are the JSON the browser's `navigator.credentials` calls take.
 * Verification answers null for every failure (bad signature, wrong origin, RP ID or challenge,
 * user not verified, counter regression, malformed input); it never throws for client input.
 */
export interface WebAuthnVerifier {
  registrationOptions(input: {
    rp: RelyingParty;
    user: { id: string; name: string };
    challenge: string;
    /** The user's existing credentials, so an authenticator is not registered twice. */
    exclude: Pick<Passkey, 'credentialId' | 'transports'>[];
  }): Promise<Record<string, unknown>>;
  /** Checks an attestation (user verification required) against the challenge and the RP. */
  verifyRegistration(input: { rp: RelyingParty; challenge: string; response: unknown }): Promise<VerifiedCredential | null>;
  /** Options for a sign-in with discoverable credentials (no allowCredentials, user verification required). */
  authenticationOptions(input: { rp: RelyingParty; challenge: string }): Promise<Record<string, unknown>>;
  /**
   * Checks an assertion made with `passkey` (signature over the challenge, origin, RP ID, user
   * verification, counter not regressed) and answers the authenticator's new counter.
   */
  verifyAuthentication(input: {
    rp: RelyingParty;
    challenge: string;
    response: unknown;
    passkey: Pick<Passkey, 'credentialId' | 'publicKey' | 'counter' | 'transports'>;
  }): Promise<{ counter: number } | null>;
}
