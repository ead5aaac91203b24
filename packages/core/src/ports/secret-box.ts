/**
 * Authenticated encryption of small secrets at rest (TOTP secrets, OAuth client secrets, queued
 * mail that carries a link). `context` binds a sealed value to where it is stored (e.g. the row's
 * id), so a value copied elsewhere does not open.
 */
export interface SecretBox {
  seal(plaintext: string, context?: string): string;
  /** Throws when the value was tampered with, sealed under another key, or another context. */
  open(sealed: string, context?: string): string;
}
