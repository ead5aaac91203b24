/**
 * Rules of the admin API's lists and searches: how big a page may be and what a search text is.
 * Every list is keyset-paged (a cursor, never an offset), so a page costs the same at any depth.
 */

/** Rows per page when the caller names none, and the most a caller may ask for. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** Longest search text: an e-mail address is at most 254 characters (RFC 5321). */
export const MAX_SEARCH_TEXT = 254;

/** The page size for a requested `limit`: the default when none, clamped to 1..{@link MAX_PAGE_SIZE}. */
export function pageSize(limit: number | undefined): number {
  return Math.min(Math.max(limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
}

/**
 * Why `text` (named `field`) cannot be a search: not a string, empty after trimming, or too long.
 * Null when it can.
 */
export function searchTextProblem(text: unknown, field: string): string | null {
  if (typeof text !== 'string') return `${field} must be a single string.`;
  const trimmed = text.trim();
  if (trimmed.length === 0) return `${field} must not be empty.`;
  if (trimmed.length > MAX_SEARCH_TEXT) return `${field} must be at most ${MAX_SEARCH_TEXT} characters.`;
  return null;
}

/**
 * A search matches case-insensitively on a substring: the text is trimmed and lower-cased here,
 * once, and adapters compare it with the lower-cased column (e-mails are stored lower-cased).
 */
export function normalizeSearchText(text: string): string {
  return text.trim().toLowerCase();
}
