import type { ApiKeyRepository } from './api-key-repository';
import type { ProjectRepository } from './project-repository';
import type { SessionStore } from './session-store';
import type { SigningKeyStore } from './signing-key-store';
import type { UserRepository } from './user-repository';

/** The storage ports of the foundation, as one storage adapter provides them. */
export interface StoragePorts {
  projects: ProjectRepository;
  apiKeys: ApiKeyRepository;
  users: UserRepository;
  sessions: SessionStore;
  signingKeys: SigningKeyStore;
}
