/**
 * The list of the most common passwords, as data behind a port so core stays free of I/O. The
 * API uses the list shipped with adapters-crypto (`CommonPasswordFile`); tests may pass a few
 * words (`InMemoryCommonPasswordList`).
 */
export interface CommonPasswordList {
  /**
   * True when `key` is on the list. Keys are what `commonPasswordKey` makes of a password, and the
   * list holds its entries in the same form, so the match is case-insensitive.
   */
  has(key: string): boolean;
}
