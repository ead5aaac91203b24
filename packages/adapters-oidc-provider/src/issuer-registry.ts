import type { Project, ProjectRepository, SigningKeyStore } from '@svc/core';
import { buildProjectIssuer, type IssuerContext, type ProjectIssuer } from './project-issuer';
import { keysFingerprint, loadIssuerKeys } from './signing-jwks';

interface Entry {
  issuer: Promise<ProjectIssuer | null>;
  checkAfter: number;
}

export interface IssuerRegistryOptions {
  projects: ProjectRepository;
  signingKeys: SigningKeyStore;
  /** How long an issuer is used before the project and its keys are read again (ms). */
  refreshMs: number;
  /** Issuers kept at most; the least recently used goes first. */
  maxProjects: number;
}

/**
 * Project issuers, built on first use and cached. After `forget` (a change notice) or every
 * `refreshMs` (the safety net) the project and its signing keys are read again, and the issuer is
 * rebuilt if either changed: that is how a plan change, a new login URL or a key rotation arrives. Concurrent requests share
 * one load. Nothing the issuer holds is state: flows live in the artifact store.
 */
export class IssuerRegistry {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly context: IssuerContext,
    private readonly options: IssuerRegistryOptions,
  ) {}

  /**
   * Makes the next request for the project (every project for null) read it and its keys again;
   * the issuer is rebuilt only if they changed. Called on a change notice; a load in flight is
   * checked again too, as it may have read the state before the change.
   */
  forget(projectId: string | null): void {
    for (const [id, entry] of this.entries) if (projectId === null || id === projectId) entry.checkAfter = 0;
  }

  /** The project's issuer, or null when there is no such project. */
  async get(projectId: string): Promise<ProjectIssuer | null> {
    const now = Date.now();
    const entry = this.entries.get(projectId);
    this.entries.delete(projectId);
    if (entry && now < entry.checkAfter) {
      this.entries.set(projectId, entry);
      return entry.issuer;
    }
    // Set synchronously, so concurrent requests share this load.
    const issuer = this.load(projectId, entry?.issuer);
    this.entries.set(projectId, { issuer, checkAfter: now + this.options.refreshMs });
    if (this.entries.size > this.options.maxProjects) this.entries.delete(this.entries.keys().next().value!);
    // A failed load (database down) is not cached: the next request tries again.
    issuer.catch(() => this.entries.delete(projectId));
    return issuer;
  }

  private async load(projectId: string, before: Promise<ProjectIssuer | null> | undefined): Promise<ProjectIssuer | null> {
    const previous = before ? await before.catch(() => null) : null;
    const project = await this.options.projects.findById(projectId);
    if (!project) return null;
    const keys = await loadIssuerKeys(this.options.signingKeys, project, new Date());
    const fingerprint = `${fingerprintOf(project)}|${keysFingerprint(keys)}`;
    if (previous && previous.fingerprint === fingerprint) return previous;
    return buildProjectIssuer(this.context, project, keys, fingerprint);
  }
}

function fingerprintOf(project: Project): string {
  return `${project.updatedAt.toISOString()}|${project.plan}|${project.oidcLoginUrl ?? ''}`;
}
