import type { ApiKeyRecord } from '../domain/api-key';

export interface ApiKeyRepository {
  /** Stores a new key record (hash and suffix only). */
  create(record: ApiKeyRecord): Promise<void>;
  /** The key whose SHA-256 is `keyHash`, revoked or not, or null. */
  findByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** Keys of one project, oldest first (revoked ones included). */
  listForProject(projectId: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked. False when the project has no such key or it was already revoked. */
  revoke(projectId: string, keyId: string, revokedAt: Date): Promise<boolean>;
}
