import type { Passkey } from '../domain/passkey';
import type { RelyingParty } from '../domain/relying-party';
import type { VerifiedCredential, WebAuthnVerifier } from '../ports/webauthn-verifier';

/** What the fake authenticator "signs": the fields a real assertion binds. */
interface FakeCeremony {
  type: 'webauthn.create' | 'webauthn.get';
  challenge: string;
  origin: string;
  rpId: string;
  counter: number;
  /** Stands in for the key pair: a registration publishes it, an assertion must carry the same. */
  key: string;
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/**
 * A WebAuthnVerifier for core's unit tests, with {@link FakeAuthenticator} making its responses.
 * No cryptography: it checks what the real verifier checks (ceremony type, challenge, origin,
 * RP ID, the credential's key, counter regression), so use cases can be tested without a
 * browser. The real ceremonies are tested with Chromium's virtual authenticator in apps/api.
 */
export class FakeWebAuthnVerifier implements WebAuthnVerifier {
  async registrationOptions(input: { rp: RelyingParty; user: { id: string; name: string }; challenge: string; exclude: Pick<Passkey, 'credentialId'>[] }) {
    return { challenge: input.challenge, rp: { id: input.rp.id, name: input.rp.name }, user: input.user, excludeCredentials: input.exclude.map((p) => ({ id: p.credentialId })) };
  }

  async verifyRegistration(input: { rp: RelyingParty; challenge: string; response: unknown }): Promise<VerifiedCredential | null> {
    const ceremony = read(input.response, 'webauthn.create', input.rp, input.challenge);
    if (!ceremony) return null;
    return { credentialId: (input.response as { id: string }).id, publicKey: ceremony.key, counter: ceremony.counter, transports: ['internal'] };
  }

  async authenticationOptions(input: { rp: RelyingParty; challenge: string }) {
    return { challenge: input.challenge, rpId: input.rp.id, allowCredentials: [], userVerification: 'required' };
  }

  async verifyAuthentication(input: { rp: RelyingParty; challenge: string; response: unknown; passkey: Pick<Passkey, 'publicKey' | 'counter'> }) {
    const ceremony = read(input.response, 'webauthn.get', input.rp, input.challenge);
    if (!ceremony || ceremony.key !== input.passkey.publicKey) return null;
    const regressed = (ceremony.counter > 0 || input.passkey.counter > 0) && ceremony.counter <= input.passkey.counter;
    return regressed ? null : { counter: ceremony.counter };
  }
}

function read(response: unknown, type: FakeCeremony['type'], rp: RelyingParty, challenge: string): FakeCeremony | null {
  try {
    const encoded = (response as { response: { clientDataJSON: string } }).response.clientDataJSON;
    const ceremony = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as FakeCeremony;
    const ok = ceremony.type === type && ceremony.challenge === challenge && rp.origins.includes(ceremony.origin) && ceremony.rpId === rp.id;
    return ok ? ceremony : null;
  } catch {
    return null;
  }
}

/** Makes responses for {@link FakeWebAuthnVerifier}: one credential, a counter that counts up. */
export class FakeAuthenticator {
  counter = 0;
  readonly credentialId = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(16))).toString('base64url');
  private readonly key = globalThis.crypto.randomUUID();

  constructor(private readonly where: { origin: string; rpId: string }) {}

  create(challenge: string, overrides: Partial<FakeCeremony> = {}) {
    return this.respond({ type: 'webauthn.create', challenge, ...overrides });
  }

  get(challenge: string, overrides: Partial<FakeCeremony> = {}) {
    this.counter += 1;
    return this.respond({ type: 'webauthn.get', challenge, ...overrides });
  }

  private respond(partial: Pick<FakeCeremony, 'type' | 'challenge'> & Partial<FakeCeremony>) {
    const ceremony: FakeCeremony = { ...this.where, counter: this.counter, key: this.key, ...partial };
    return { id: this.credentialId, rawId: this.credentialId, type: 'public-key', response: { clientDataJSON: encode(ceremony) } };
  }
}
