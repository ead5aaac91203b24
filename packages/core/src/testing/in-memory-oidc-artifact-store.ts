import type { NewOidcArtifact, OidcArtifact, OidcArtifactStore } from '../ports/oidc-artifact-store';

type Stored = OidcArtifact & { projectId: string };

/** Reference OidcArtifactStore in process memory; no await inside a step, so each is atomic. */
export class InMemoryOidcArtifactStore implements OidcArtifactStore {
  private readonly artifacts = new Map<string, Stored>();

  async upsert(projectId: string, artifact: NewOidcArtifact): Promise<void> {
    const key = keyOf(projectId, artifact.model, artifact.id);
    const consumedAt = this.artifacts.get(key)?.consumedAt ?? null;
    this.artifacts.set(key, { ...structuredClone(artifact), projectId, consumedAt });
  }

  async find(projectId: string, model: string, id: string, now: Date): Promise<OidcArtifact | null> {
    return this.live(this.artifacts.get(keyOf(projectId, model, id)), now);
  }

  async findByUid(projectId: string, model: string, uid: string, now: Date): Promise<OidcArtifact | null> {
    return this.findBy(projectId, model, now, (a) => a.uid === uid);
  }

  async findByUserCode(projectId: string, model: string, userCode: string, now: Date): Promise<OidcArtifact | null> {
    return this.findBy(projectId, model, now, (a) => a.userCode === userCode);
  }

  async consume(projectId: string, model: string, id: string, at: Date): Promise<boolean> {
    const artifact = this.artifacts.get(keyOf(projectId, model, id));
    if (!artifact || artifact.consumedAt) return false;
    artifact.consumedAt = at;
    return true;
  }

  async destroy(projectId: string, model: string, id: string): Promise<void> {
    this.artifacts.delete(keyOf(projectId, model, id));
  }

  async revokeByGrantId(projectId: string, model: string, grantId: string): Promise<number> {
    let count = 0;
    for (const [key, a] of this.artifacts) {
      if (a.projectId === projectId && a.model === model && a.grantId === grantId) {
        this.artifacts.delete(key);
        count += 1;
      }
    }
    return count;
  }

  async deleteExpired(now: Date, limit: number): Promise<number> {
    let count = 0;
    for (const [key, a] of this.artifacts) {
      if (count >= limit) break;
      if (a.expiresAt !== null && a.expiresAt <= now) {
        this.artifacts.delete(key);
        count += 1;
      }
    }
    return count;
  }

  private findBy(projectId: string, model: string, now: Date, match: (a: Stored) => boolean): OidcArtifact | null {
    for (const a of this.artifacts.values()) {
      if (a.projectId === projectId && a.model === model && match(a) && this.live(a, now)) return this.live(a, now);
    }
    return null;
  }

  private live(artifact: Stored | undefined, now: Date): OidcArtifact | null {
    if (!artifact || (artifact.expiresAt !== null && artifact.expiresAt <= now)) return null;
    const { projectId: _projectId, ...rest } = artifact;
    return structuredClone(rest);
  }
}

// JSON array form: no separator can be forged by an id that contains it.
function keyOf(projectId: string, model: string, id: string): string {
  return JSON.stringify([projectId, model, id]);
}
