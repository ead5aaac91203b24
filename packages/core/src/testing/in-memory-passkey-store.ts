import { sameScope, type TenantScope } from '../domain/environment';
import type { Passkey } from '../domain/passkey';
import type { PasskeyStore } from '../ports/passkey-store';

type Stored = Passkey & { scope: TenantScope };

/** Reference PasskeyStore in process memory; no await inside a step, so each step is atomic. */
export class InMemoryPasskeyStore implements PasskeyStore {
  private readonly passkeys: Stored[] = [];

  async add(scope: TenantScope, passkey: Passkey): Promise<'created' | 'exists'> {
    if (this.passkeys.some((p) => sameScope(p.scope, scope) && p.credentialId === passkey.credentialId)) return 'exists';
    this.passkeys.push({ ...structuredClone(passkey), scope: { ...scope } });
    return 'created';
  }

  async findByCredentialId(scope: TenantScope, credentialId: string): Promise<Passkey | null> {
    const found = this.passkeys.find((p) => sameScope(p.scope, scope) && p.credentialId === credentialId);
    return found ? strip(found) : null;
  }

  async listForUser(scope: TenantScope, userId: string): Promise<Passkey[]> {
    return this.passkeys
      .filter((p) => sameScope(p.scope, scope) && p.userId === userId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map(strip);
  }

  async recordUse(scope: TenantScope, credentialId: string, use: { counter: number; at: Date }): Promise<boolean> {
    const found = this.passkeys.find((p) => sameScope(p.scope, scope) && p.credentialId === credentialId);
    if (!found || !counterMovesOn(found.counter, use.counter)) return false;
    found.counter = use.counter;
    found.lastUsedAt = use.at;
    return true;
  }

  async remove(scope: TenantScope, userId: string, id: string): Promise<boolean> {
    const index = this.passkeys.findIndex((p) => sameScope(p.scope, scope) && p.userId === userId && p.id === id);
    if (index < 0) return false;
    this.passkeys.splice(index, 1);
    return true;
  }
}

/** WebAuthn §6.1.1: the counter must grow, unless the authenticator keeps none (both 0). */
function counterMovesOn(stored: number, next: number): boolean {
  return next > stored || (next === 0 && stored === 0);
}

function strip(stored: Stored): Passkey {
  const { scope: _scope, ...passkey } = stored;
  return structuredClone(passkey);
}
