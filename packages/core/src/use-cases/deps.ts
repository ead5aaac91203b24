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
}
