import type { UnitOfWork } from '../ports/unit-of-work';
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
import type { SecurityEventSink } from '../ports/security-event-sink';
import type { AuditLog } from '../ports/audit-log';
import type { RateLimitStats } from '../ports/rate-limit-stats';
import type { WebhookStore } from '../ports/webhook-store';
import type { WebhookTransport } from '../ports/webhook-transport';

export interface AuthSettings {
  /** `iss` of every access token: the service's base URL. */
  issuer: string;
  planUserLimits: PlanUserLimits;
  /**
   * Issue refresh tokens that carry their issue time and are stored in issue order
   * (domain/refresh-token.ts); off: bare secrets, which a release before that form still finds.
   */
  refreshTokenIssueTime?: boolean;
}

/**
 * What every host supplies: enough for password sign-up and sign-in, refresh, /me, log-out, the
 * JWKS and the admin API. Everything else is a capability (docs/architecture.md, "Capabilities").
 */
export interface CoreDeps {
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
  /**
   * Where security events go (the audit log and webhooks: createEventRecorder). Without one the
   * service records nothing, as before events existed.
   */
  events?: SecurityEventSink;
  /**
   * Makes a change and the events recording it one transaction (the SQL adapter's Database).
   * Without one, each store writes on its own, as before.
   */
  unitOfWork?: UnitOfWork;
}

/** TOTP second factor: enrolment, and the challenge a password-equivalent sign-in then asks for. */
export interface TotpDeps {
  twoFactor: TwoFactorStore;
  totp: TotpAlgorithm;
  secretBox: SecretBox;
  oneTimeTokens: OneTimeTokenStore;
}

/** Passkeys: registration and sign-in. */
export interface PasskeyDeps {
  passkeys: PasskeyStore;
  webauthn: WebAuthnVerifier;
  oneTimeTokens: OneTimeTokenStore;
}

/** Magic links and password resets. Requests only enqueue; the outbox worker sends. */
export interface MailDeps {
  outbox: MailOutbox;
  secretBox: SecretBox;
  oneTimeTokens: OneTimeTokenStore;
}

/** Social sign-in: provider settings, linked identities, the protocol client. */
export interface OAuthDeps {
  oauthProviders: OAuthProviderStore;
  identities: IdentityRepository;
  oauthClient: OAuthProviderClient;
  secretBox: SecretBox;
  oneTimeTokens: OneTimeTokenStore;
}

/** Clients that completed a sign-in, so failures from elsewhere do not lock them out. */
export interface KnownDeviceDeps {
  knownDevices: KnownDeviceStore;
}

/** The most common passwords, refused where a project's `rejectCommonPasswords` is on. */
export interface CommonPasswordDeps {
  commonPasswords: CommonPasswordList;
}

/** The audit log: what the event recorder wrote, read back by the admin API. */
export interface AuditDeps {
  auditLog: AuditLog;
}

/** Requests refused with 429, per project environment and hour (the overview's figure). */
export interface RateLimitStatsDeps {
  rateLimitStats: RateLimitStats;
}

/** Webhooks: endpoints and their delivery queue, and the transport that signs and sends. */
export interface WebhookParts {
  webhooks: WebhookStore;
  webhookTransport: WebhookTransport;
  secretBox: SecretBox;
}

/** Every part of every capability. Each use case picks only the members it uses. */
export type AuthDeps = CoreDeps & TotpDeps & PasskeyDeps & MailDeps & OAuthDeps & KnownDeviceDeps & CommonPasswordDeps & AuditDeps & RateLimitStatsDeps & WebhookParts;

/** The parts of `K` a use case works without (it skips what they are for). */
export type OptionalDeps<K extends keyof AuthDeps> = Partial<Pick<AuthDeps, K>>;

/**
 * The parts of each capability. A capability is on when all its parts are given; its own parts
 * (not shared with another capability) come first: given one of those, the rest are required.
 */
export const CAPABILITY_PARTS = {
  totp: ['twoFactor', 'totp', 'secretBox', 'oneTimeTokens'],
  passkeys: ['passkeys', 'webauthn', 'oneTimeTokens'],
  mail: ['outbox', 'secretBox', 'oneTimeTokens'],
  oauth: ['oauthProviders', 'identities', 'oauthClient', 'secretBox', 'oneTimeTokens'],
  knownDevices: ['knownDevices'],
  commonPasswords: ['commonPasswords'],
  audit: ['auditLog'],
  rateLimitStats: ['rateLimitStats'],
  webhooks: ['webhooks', 'webhookTransport', 'secretBox'],
} as const satisfies Record<string, readonly (keyof AuthDeps)[]>;

export type Capability = keyof typeof CAPABILITY_PARTS;

/** The parts of one capability. */
export type CapabilityDeps<C extends Capability> = Pick<AuthDeps, (typeof CAPABILITY_PARTS)[C][number]>;

/** What createAuthService takes: the core parts, and the parts of any capabilities wanted. */
export type AuthServiceDeps = CoreDeps & Partial<Omit<AuthDeps, keyof CoreDeps>>;

const SHARED_PARTS: ReadonlySet<keyof AuthDeps> = new Set(['secretBox', 'oneTimeTokens']);

/** True when `deps` holds every part of `capability`. */
export function hasCapability<D extends Partial<AuthDeps>, C extends Capability>(deps: D, capability: C): deps is D & CapabilityDeps<C> {
  return CAPABILITY_PARTS[capability].every((part) => deps[part] !== undefined);
}

/**
 * Throws when a capability is given in part: one of its own parts without the others. Left
 * unnoticed, a half-given TOTP would sign users in without the second factor they enrolled.
 */
export function assertWholeCapabilities(deps: Partial<AuthDeps>): void {
  for (const [capability, parts] of Object.entries(CAPABILITY_PARTS) as [Capability, readonly (keyof AuthDeps)[]][]) {
    const ownGiven = parts.some((part) => !SHARED_PARTS.has(part) && deps[part] !== undefined);
    const missing = parts.filter((part) => deps[part] === undefined);
    if (ownGiven && missing.length > 0) {
      throw new TypeError(`createAuthService: the ${capability} capability needs ${parts.join(', ')}; missing: ${missing.join(', ')}.`);
    }
  }
}
