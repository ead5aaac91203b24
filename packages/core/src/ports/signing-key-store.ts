import type { TenantScope } from '../domain/environment';
import type { SigningKeyRecord } from '../domain/signing-key';

export interface SigningKeyStore {
  /**
   * Makes `key` the scope's current key; the previous current key (if any) is retired at
   * `key.createdAt` in the same atomic step, so a scope never has two current keys.
   */
  rotate(scope: TenantScope, key: SigningKeyRecord): Promise<void>;
  /** The scope's current (unretired) key, or null when it has none yet. */
  current(scope: TenantScope): Promise<SigningKeyRecord | null>;
  /** The current key and every key retired at or after `retiredSince`, newest first. */
  listPublished(scope: TenantScope, retiredSince: Date): Promise<SigningKeyRecord[]>;
  /** The key with this kid in the scope (retired or not), or null. Keys of other scopes are never found. */
  findByKid(scope: TenantScope, kid: string): Promise<SigningKeyRecord | null>;
  /**
   * Some current key of any scope, or null when none is stored: opened at start to check that
   * the master key is the one the stored keys were sealed with.
   */
  anyCurrent(): Promise<SigningKeyRecord | null>;
}
