import type { PlanUserLimits } from '../domain/project';
import type { AccessTokenCodec, SigningKeyFactory } from '../ports/access-token-codec';
import type { ApiKeyRepository } from '../ports/api-key-repository';
import type { Clock } from '../ports/clock';
import type { PasswordHasher } from '../ports/password-hasher';
import type { ProjectRepository } from '../ports/project-repository';
import type { Random } from '../ports/random';
import type { SessionStore } from '../ports/session-store';
import type { SigningKeyStore } from '../ports/signing-key-store';
import type { UserRepository } from '../ports/user-repository';
import type { OneTimeTokenStore } from '../ports/one-time-token-store';
import type { SecretBox } from '../ports/secret-box';
import type { TwoFactorStore } from '../ports/two-factor-store';
import type { PasskeyStore } from '../ports/passkey-store';
import type { TotpAlgorithm } from '../ports/totp-algorithm';
import type { WebAuthnVerifier } from '../ports/webauthn-verifier';
import type { MailOutbox } from '../ports/mail-outbox';
import type { OAuthProviderStore } from '../ports/oauth-provider-store';
import type { IdentityRepository } from '../ports/identity-repository';
import type { OAuthProviderClient } from '../ports/oauth-provider-client';
import type { CommonPasswordList } from '../ports/common-password-list';
import type { KnownDeviceStore } from '../ports/known-device-store';

export interface AuthSettings {
  /** `iss` of every access token: the service's base URL. */
  issuer: string;
  planUserLimits: PlanUserLimits;
}

/** Everything the use cases may need. Each use case picks only the members it uses. */
export interface AuthDeps {
  settings: AuthSettings;
  clock: Clock;
  random: Random;
  projects: ProjectRepository;
  apiKeys: ApiKeyRepository;
  users: UserRepository;
  sessions: SessionStore;
  signingKeys: SigningKeyStore;
  keyFactory: SigningKeyFactory;
  tokens: AccessTokenCodec;
  passwords: PasswordHasher;
  oneTimeTokens: OneTimeTokenStore;
  secretBox: SecretBox;
  // Second factor and passkeys (issue 5).
  twoFactor: TwoFactorStore;
  passkeys: PasskeyStore;
  totp: TotpAlgorithm;
  webauthn: WebAuthnVerifier;
  // E-mail flows (issue 4): requests only enqueue; the outbox worker sends.
  outbox: MailOutbox;
  // Social sign-in (issue 9): provider settings, linked identities, the protocol client.
  oauthProviders: OAuthProviderStore;
  identities: IdentityRepository;
  oauthClient: OAuthProviderClient;
  /** The most common passwords, refused where a project's `rejectCommonPasswords` is on. */
  commonPasswords: CommonPasswordList;
  // Clients that completed a sign-in, so failures from elsewhere do not lock them out.
  knownDevices: KnownDeviceStore;
}
