import type { TenantScope } from '../domain/environment';
import { sameScope } from '../domain/environment';
import type { SigningKeyRecord } from '../domain/signing-key';
import type { SigningKeyStore } from '../ports/signing-key-store';

/** Reference SigningKeyStore kept in process memory. */
export class InMemorySigningKeyStore implements SigningKeyStore {
  private readonly keys: SigningKeyRecord[] = [];

  async rotate(scope: TenantScope, key: SigningKeyRecord): Promise<void> {
    for (const existing of this.keys) {
      if (sameScope(existing, scope) && existing.retiredAt === null) existing.retiredAt = key.createdAt;
    }
    this.keys.push({ ...key, projectId: scope.projectId, environment: scope.environment, retiredAt: null });
  }

  async anyCurrent(): Promise<SigningKeyRecord | null> {
    const key = this.keys.find((k) => k.retiredAt === null);
    return key ? { ...key } : null;
  }

  async current(scope: TenantScope): Promise<SigningKeyRecord | null> {
    const key = this.keys.find((k) => sameScope(k, scope) && k.retiredAt === null);
    return key ? { ...key } : null;
  }

  async listPublished(scope: TenantScope, retiredSince: Date): Promise<SigningKeyRecord[]> {
    return this.keys
      .filter((k) => sameScope(k, scope) && (k.retiredAt === null || k.retiredAt >= retiredSince))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .map((k) => ({ ...k }));
  }

  async findByKid(scope: TenantScope, kid: string): Promise<SigningKeyRecord | null> {
    const key = this.keys.find((k) => sameScope(k, scope) && k.kid === kid);
    return key ? { ...key } : null;
  }

  forgetProject(projectId: string): void {
    for (let i = this.keys.length - 1; i >= 0; i -= 1) if (this.keys[i].projectId === projectId) this.keys.splice(i, 1);
  }
}
