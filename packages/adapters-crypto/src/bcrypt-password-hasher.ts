import { createHmac, randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';
import type { PasswordHasher } from '@svc/core';
import { BcryptThreads } from './bcrypt-threads';

/**
 * Fixed, public HMAC key of the pre-hash. It is not a secret (the bcrypt salt does the salting);
 * it separates this pre-hash from a bare SHA-256 of the password, so leaked unsalted SHA-256
 * lists cannot be fed to bcrypt directly. Changing it invalidates every stored hash.
 */
export const PASSWORD_PREHASH_KEY = 'svc/password-prehash/v1';

/** A well-formed bcrypt hash: `$2a$`/`$2b$`/`$2y$`, two-digit cost, 22-char salt + 31-char digest. */
const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

export interface BcryptPasswordHasherOptions {
  /** bcrypt cost (log2 rounds), 4..31: 12 in production, lower only in tests. */
  cost: number;
  /**
   * Hash on worker threads niced below the event loop (bcrypt-threads.ts) instead of the libuv
   * pool, so a burst of logins cannot starve the requests that need no hash. The API turns it on.
   */
  lowPriorityThreads?: boolean;
}

/** bcrypt's two async calls, on the libuv pool or on the low-priority threads. */
type BcryptEngine = Pick<BcryptThreads, 'hash' | 'compare'>;

let sharedThreads: BcryptThreads | null = null;
/** One set of hash threads per process, however many hashers: they size the work, not the hasher. */
function lowPriorityEngine(): BcryptEngine {
  sharedThreads ??= new BcryptThreads();
  return sharedThreads;
}

/**
 * PasswordHasher on the native `bcrypt` package (docs/security.md#passwords).
 *
 * bcrypt reads only the first 72 bytes of its input and stops at a NUL byte, so the password is
 * first reduced to HMAC-SHA-256 -> base64 (44 ASCII characters, no NUL): every byte counts.
 * Only async calls are used: hashing runs on the libuv pool (or on low-priority threads of its
 * own) and never blocks the event loop.
 */
export class BcryptPasswordHasher implements PasswordHasher {
  private readonly cost: number;
  private readonly engine: BcryptEngine;
  private dummyHash: Promise<string> | null = null;

  constructor(options: BcryptPasswordHasherOptions) {
    if (!Number.isInteger(options.cost) || options.cost < 4 || options.cost > 31) {
      throw new RangeError(`bcrypt cost must be an integer from 4 to 31, got ${options.cost}`);
    }
    this.cost = options.cost;
    this.engine = options.lowPriorityThreads ? lowPriorityEngine() : bcrypt;
  }

  hash(password: string): Promise<string> {
    return this.engine.hash(prehash(password), this.cost);
  }

  async verify(password: string, hash: string): Promise<boolean> {
    // A stored value that is not a bcrypt hash cannot match; the native binding may reject it.
    if (typeof hash !== 'string' || !BCRYPT_HASH.test(hash)) return false;
    try {
      return await this.engine.compare(prehash(password), hash);
    } catch {
      return false;
    }
  }

  /** Runs a real compare at the configured cost, so an unknown e-mail costs what a wrong password does. */
  async verifyDummy(password: string): Promise<false> {
    await this.verify(password, await this.dummy());
    return false;
  }

  /** Computed once, lazily (no bcrypt work at construction), then reused. */
  private dummy(): Promise<string> {
    if (!this.dummyHash) {
      this.dummyHash = this.hash(randomBytes(32).toString('base64url'));
      // A failed computation is not cached: the next call tries again.
      this.dummyHash.catch(() => (this.dummyHash = null));
    }
    return this.dummyHash;
  }
}

function prehash(password: string): string {
  return createHmac('sha256', PASSWORD_PREHASH_KEY).update(password, 'utf8').digest('base64');
}
