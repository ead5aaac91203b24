import type { OidcInteractionGateway, PendingOidcAuthorization } from '../ports/oidc-interactions';

/**
 * An OidcInteractionGateway for use-case tests: pending authorizations are added by the test,
 * and finished ones are recorded in `finished` (and are no longer pending), like the real one.
 */
export class RecordingOidcInteractions implements OidcInteractionGateway {
  readonly finished: Array<{ projectId: string; uid: string; outcome: 'approved' | 'denied'; userId?: string; scopes?: string[] }> = [];
  private readonly waiting = new Map<string, PendingOidcAuthorization & { projectId: string }>();

  add(projectId: string, pending: PendingOidcAuthorization): void {
    this.waiting.set(pending.uid, { ...pending, projectId });
  }

  async pending(projectId: string, uid: string): Promise<PendingOidcAuthorization | null> {
    const found = this.waiting.get(uid);
    if (!found || found.projectId !== projectId) return null;
    const { projectId: _p, ...pending } = found;
    return pending;
  }

  async approve(projectId: string, uid: string, decision: { userId: string; scopes: string[] }): Promise<string> {
    this.finish(projectId, uid);
    this.finished.push({ projectId, uid, outcome: 'approved', ...decision });
    return `https://issuer.test/${projectId}/authorize/${uid}`;
  }

  async deny(projectId: string, uid: string): Promise<string> {
    this.finish(projectId, uid);
    this.finished.push({ projectId, uid, outcome: 'denied' });
    return `https://issuer.test/${projectId}/authorize/${uid}`;
  }

  private finish(projectId: string, uid: string): void {
    if (!this.waiting.get(uid) || this.waiting.get(uid)!.projectId !== projectId) throw new Error('no such pending authorization');
    this.waiting.delete(uid);
  }
}
