/**
 * What an admin change touched. Caches that hold state of that kind for that project drop it;
 * `everything` (a feed that may have missed notices, e.g. after a reconnect) drops every cache.
 */
export const CHANGE_KINDS = ['project', 'api-keys', 'signing-keys', 'oauth-providers', 'oidc-clients', 'users'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export type ChangeNotice = { kind: ChangeKind; projectId: string } | { kind: 'everything' };

export type ChangeListener = (notice: ChangeNotice) => void;

/**
 * Tells every instance of the service that admin-changeable state changed, so their caches drop
 * it (docs/decisions.md, "Changes reach every instance"). The caches' TTLs stay as a safety net.
 */
export interface ChangeFeed {
  /**
   * Delivers `notice` to this process's listeners before it resolves (synchronously), then sends
   * it to the other instances, which deliver it to theirs within about a second. Never rejects: a
   * notice that cannot be sent is reported by the feed, and the caches' TTLs bound what it costs.
   */
  publish(notice: ChangeNotice): Promise<void>;
  /** Calls `listener` with every notice, this process's and other instances'; returns the unsubscribe. */
  subscribe(listener: ChangeListener): () => void;
  /** Stops listening for other instances' notices (closes the feed's connections, if any). */
  close(): Promise<void>;
}

/** The project of `notice`, or null for one about every project. */
export function projectOfNotice(notice: ChangeNotice): string | null {
  return notice.kind === 'everything' ? null : notice.projectId;
}

/**
 * A notice as received from another instance (parsed JSON of unknown shape): the notice, or null
 * when it is not one (another version's kind, garbage on a shared channel).
 */
export function parseChangeNotice(value: unknown): ChangeNotice | null {
  if (typeof value !== 'object' || value === null) return null;
  const { kind, projectId } = value as { kind?: unknown; projectId?: unknown };
  if (kind === 'everything') return { kind };
  if (!CHANGE_KINDS.includes(kind as ChangeKind) || typeof projectId !== 'string' || projectId === '' || projectId.length > 100) return null;
  return { kind: kind as ChangeKind, projectId };
}
