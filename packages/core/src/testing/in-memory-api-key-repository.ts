import type { ApiKeyRecord } from '../domain/api-key';
import type { ApiKeyRepository } from '../ports/api-key-repository';

/** Reference ApiKeyRepository kept in process memory. */
export class InMemoryApiKeyRepository implements ApiKeyRepository {
  private readonly keys = new Map<string, ApiKeyRecord>();

  async create(record: ApiKeyRecord): Promise<void> {
    if ([...this.keys.values()].some((k) => k.keyHash === record.keyHash)) throw new Error('duplicate key hash');
    this.keys.set(record.id, { ...record });
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const key = [...this.keys.values()].find((k) => k.keyHash === keyHash);
    return key ? { ...key } : null;
  }

  async listForProject(projectId: string): Promise<ApiKeyRecord[]> {
    return [...this.keys.values()]
      .filter((k) => k.projectId === projectId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map((k) => ({ ...k }));
  }

  async revoke(projectId: string, keyId: string, revokedAt: Date): Promise<boolean> {
    const key = this.keys.get(keyId);
    if (!key || key.projectId !== projectId || key.revokedAt) return false;
    key.revokedAt = revokedAt;
    return true;
  }

  forgetProject(projectId: string): void {
    for (const [hash, key] of this.keys) if (key.projectId === projectId) this.keys.delete(hash);
  }
}
