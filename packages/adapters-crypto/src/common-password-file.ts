import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commonPasswordKey, type CommonPasswordList } from '@svc/core';

/** The list shipped with the service; its source and licence are in password-lists/README.md. */
export const SHIPPED_COMMON_PASSWORDS = join(__dirname, '..', 'password-lists', 'common-passwords.txt');

/**
 * CommonPasswordList over a file of one password per line, read once per process on the first
 * check (so a deployment whose projects never turn the check on never pays for it) and kept as a
 * set of `commonPasswordKey`s. Local only: nothing is fetched over the network.
 */
export class CommonPasswordFile implements CommonPasswordList {
  private entries: Set<string> | null = null;

  constructor(private readonly path: string = SHIPPED_COMMON_PASSWORDS) {}

  has(key: string): boolean {
    this.entries ??= load(this.path);
    return this.entries.has(key);
  }

  /** How many distinct entries the list holds (reads it if not read yet). */
  get size(): number {
    this.entries ??= load(this.path);
    return this.entries.size;
  }
}

function load(path: string): Set<string> {
  const entries = new Set<string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const password = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (password) entries.add(commonPasswordKey(password));
  }
  return entries;
}
