export interface PasswordHasher {
  /** A salted, slow hash of the password. Every byte of the password counts. */
  hash(password: string): Promise<string>;
  /** True when `password` matches `hash`. Never throws for a malformed hash (answers false). */
  verify(password: string, hash: string): Promise<boolean>;
  /** Costs what `verify` costs and answers false: used for unknown e-mails (no timing oracle). */
  verifyDummy(password: string): Promise<false>;
}
