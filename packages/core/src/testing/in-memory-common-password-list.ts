import { commonPasswordKey } from '../domain/password-policy';
import type { CommonPasswordList } from '../ports/common-password-list';

/** A few words in memory, for tests; the service ships a real list (adapters-crypto). */
export class InMemoryCommonPasswordList implements CommonPasswordList {
  private readonly entries: Set<string>;

  constructor(passwords: readonly string[] = ['password', '12345678', 'qwerty123', 'iloveyou']) {
    this.entries = new Set(passwords.map(commonPasswordKey));
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }
}
