import type * as SimpleWebAuthn from '@simplewebauthn/server';
import type { AuthenticationResponseJSON, AuthenticatorTransportFuture, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Passkey, RelyingParty, VerifiedCredential, WebAuthnVerifier } from '@svc/core';

export interface SimpleWebAuthnOptions {
  /** Told why a ceremony was refused (the API answers only `invalid_passkey`); for logs and tests. */
  onRejected?: (reason: unknown) => void;
  /** How long the browser may take, in milliseconds (default 60 000). */
  timeoutMs?: number;
}

// ES256 and RS256: what platform authenticators and security keys create (EdDSA too rarely to matter).
const ALGORITHMS = [-7, -257];
const bytes = (base64url: string) => new Uint8Array(Buffer.from(base64url, 'base64url'));
const transports = (list: string[]) => list as AuthenticatorTransportFuture[];

let library: typeof SimpleWebAuthn | undefined;

/**
 * The library (with its ASN.1 and X.509 dependencies, about a fifth of the server's start-up
 * module loading) is required on the first ceremony, not when the server starts: most requests
 * never touch a passkey.
 */
function webauthn(): typeof SimpleWebAuthn {
  library ??= require('@simplewebauthn/server') as typeof SimpleWebAuthn;
  return library;
}

/**
 * WebAuthn ceremonies with `@simplewebauthn/server` (its CommonJS build, so it also loads under
 * jest). Passkeys are discoverable credentials: registration requires a resident key, and both
 * ceremonies require user verification, which is what lets passkey sign-in skip TOTP.
 */
export class SimpleWebAuthnVerifier implements WebAuthnVerifier {
  constructor(private readonly options: SimpleWebAuthnOptions = {}) {}

  async registrationOptions(input: { rp: RelyingParty; user: { id: string; name: string }; challenge: string; exclude: Pick<Passkey, 'credentialId' | 'transports'>[] }) {
    const options = await webauthn().generateRegistrationOptions({
      rpName: input.rp.name,
      rpID: input.rp.id,
      userName: input.user.name,
      userID: new Uint8Array(Buffer.from(input.user.id, 'utf8')),
      // Bytes, not the string: a string would be UTF-8 encoded again and no longer equal ours.
      challenge: bytes(input.challenge),
      timeout: this.options.timeoutMs ?? 60_000,
      attestationType: 'none',
      excludeCredentials: input.exclude.map((p) => ({ id: p.credentialId, transports: transports(p.transports) })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    return options as unknown as Record<string, unknown>;
  }

  async verifyRegistration(input: { rp: RelyingParty; challenge: string; response: unknown }): Promise<VerifiedCredential | null> {
    return this.guard(async () => {
      const result = await webauthn().verifyRegistrationResponse({
        response: input.response as RegistrationResponseJSON,
        ...expectations(input),
        supportedAlgorithmIDs: ALGORITHMS,
      });
      if (!result.verified) return null;
      const { credential } = result.registrationInfo;
      return {
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: [...(credential.transports ?? [])],
      };
    });
  }

  async authenticationOptions(input: { rp: RelyingParty; challenge: string }) {
    const options = await webauthn().generateAuthenticationOptions({
      rpID: input.rp.id,
      challenge: bytes(input.challenge),
      timeout: this.options.timeoutMs ?? 60_000,
      userVerification: 'required',
      allowCredentials: [],
    });
    return options as unknown as Record<string, unknown>;
  }

  async verifyAuthentication(input: {
    rp: RelyingParty;
    challenge: string;
    response: unknown;
    passkey: Pick<Passkey, 'credentialId' | 'publicKey' | 'counter' | 'transports'>;
  }): Promise<{ counter: number } | null> {
    return this.guard(async () => {
      const result = await webauthn().verifyAuthenticationResponse({
        response: input.response as AuthenticationResponseJSON,
        ...expectations(input),
        credential: {
          id: input.passkey.credentialId,
          publicKey: bytes(input.passkey.publicKey),
          counter: input.passkey.counter,
          transports: transports(input.passkey.transports),
        },
      });
      return result.verified ? { counter: result.authenticationInfo.newCounter } : null;
    });
  }

  /** The library throws on every kind of bad input; to the caller that is simply "not verified". */
  private async guard<T>(work: () => Promise<T | null>): Promise<T | null> {
    try {
      const result = await work();
      if (result === null) this.options.onRejected?.(new Error('not verified'));
      return result;
    } catch (error) {
      this.options.onRejected?.(error);
      return null;
    }
  }
}

/** What both ceremonies check: this challenge, the relying party's origins and id, and user verification. */
function expectations(input: { rp: RelyingParty; challenge: string }) {
  return { expectedChallenge: input.challenge, expectedOrigin: input.rp.origins, expectedRPID: input.rp.id, requireUserVerification: true };
}
