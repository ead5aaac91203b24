import type { TenantScope } from '../domain/environment';
import type { Passkey } from '../domain/passkey';

/** WebAuthn credentials of users, per tenant scope. Credential ids are unique within a scope. */
export interface PasskeyStore {
  /** Stores a new passkey; `exists` (nothing stored) when the credential id is already registered in the scope. */
  add(scope: TenantScope, passkey: Passkey): Promise<'created' | 'exists'>;
  /** The passkey with this credential id in the scope, or null. */
  findByCredentialId(scope: TenantScope, credentialId: string): Promise<Passkey | null>;
  /** The user's passkeys, oldest first. */
  listForUser(scope: TenantScope, userId: string): Promise<Passkey[]>;
  /**
   * Records a verified sign-in: sets `counter` and `lastUsedAt` only if `counter` is greater than
   * the stored one, or both are 0 (authenticators that keep no counter). Anything else is a
   * counter regression (a cloned authenticator, or a replayed assertion) and changes nothing.
   * True when the update applied. Atomic: of concurrent uses with one counter value one wins.
   */
  recordUse(scope: TenantScope, credentialId: string, use: { counter: number; at: Date }): Promise<boolean>;
  /** Deletes the user's passkey with this id; false when the user has no such passkey. */
  remove(scope: TenantScope, userId: string, id: string): Promise<boolean>;
}
