/**
 * One thing the OIDC provider keeps between requests: a session, an interaction, a grant, an
 * authorization code, an access or refresh token (`model` names which). The payload is the
 * provider's own JSON; the indexed fields are lifted out of it so lookups need no JSON queries.
 */
export interface OidcArtifact {
  model: string;
  id: string;
  payload: Record<string, unknown>;
  /** The grant the artifact was issued under (codes, tokens), for revocation as a family. */
  grantId: string | null;
  /** The session's browser-side uid (sessions only). */
  uid: string | null;
  /** The device flow's user code (unused here; kept so the store is the provider's whole contract). */
  userCode: string | null;
  /** null: kept until destroyed. */
  expiresAt: Date | null;
  /** When a single-use artifact (code, rotated refresh token) was used; null while unused. */
  consumedAt: Date | null;
}

export type NewOidcArtifact = Omit<OidcArtifact, 'consumedAt'>;

/**
 * Storage of the hosted OIDC provider (oidc-provider's adapter interface, named by intent), shared
 * by every API instance so a flow may start on one and finish on another. Artifacts belong to one
 * project's issuer; every method is bounded by `projectId`. Methods that take `now` treat an
 * artifact whose `expiresAt <= now` as gone.
 */
export interface OidcArtifactStore {
  /**
   * Inserts the artifact, or replaces payload, indexes and expiry of the one with the same
   * (project, model, id). A replace keeps `consumedAt`: saving again never makes a used code new.
   */
  upsert(projectId: string, artifact: NewOidcArtifact): Promise<void>;
  /** The live artifact (project, model, id), or null. */
  find(projectId: string, model: string, id: string, now: Date): Promise<OidcArtifact | null>;
  /** The live artifact of the model with this uid, or null. */
  findByUid(projectId: string, model: string, uid: string, now: Date): Promise<OidcArtifact | null>;
  /** The live artifact of the model with this user code, or null. */
  findByUserCode(projectId: string, model: string, userCode: string, now: Date): Promise<OidcArtifact | null>;
  /**
   * The single-use step: sets `consumedAt = at` if the artifact exists and is unconsumed, in one
   * atomic conditional update. True only for the caller whose update applied: of concurrent
   * consumes of one code, on any number of instances, exactly one gets true.
   */
  consume(projectId: string, model: string, id: string, at: Date): Promise<boolean>;
  /** Deletes the artifact (idempotent). */
  destroy(projectId: string, model: string, id: string): Promise<void>;
  /** Deletes every artifact of the model issued under the grant; answers how many. */
  revokeByGrantId(projectId: string, model: string, grantId: string): Promise<number>;
  /** Housekeeping over every project: deletes up to `limit` artifacts expired at `now`; answers how many. */
  deleteExpired(now: Date, limit: number): Promise<number>;
}
