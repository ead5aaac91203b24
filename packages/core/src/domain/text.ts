/**
 * Text the service stores and hands back must be well-formed Unicode without NUL: PostgreSQL
 * refuses U+0000 in `text` and `jsonb`, and a lone UTF-16 surrogate is no character at all (it
 * becomes U+FFFD on its way to UTF-8, so what is stored is not what was sent, and `jsonb` refuses
 * its `\ud800` escape). The edges refuse such input as `validation_error` before doing any work
 * with it (docs/security.md, "Input").
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what this refuses (PostgreSQL cannot store it).
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when `value` holds no NUL and no unpaired surrogate. */
export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/**
 * Characters as a person counts them, for length limits: code points, so a surrogate pair is one,
 * and without the variation selectors (U+FE0E, U+FE0F) that only choose how the character before
 * them looks.
 */
export function characterCount(value: string): number {
  let count = 0;
  for (const char of value) if (char !== '\ufe0e' && char !== '\ufe0f') count += 1;
  return count;
}

/** Longest name of a project or an OIDC client (shown to users on consent and login pages). */
export const MAX_DISPLAY_NAME = 200;

/** Why `value` cannot be the display name in `field`: not a string, too long, a line break, or blank; or null. */
export function displayNameProblem(value: unknown, field: string): string | null {
  if (typeof value !== 'string') return `${field} must be a string.`;
  if (characterCount(value) > MAX_DISPLAY_NAME) return `${field} must be at most ${MAX_DISPLAY_NAME} characters.`;
  if (/[\r\n]/.test(value)) return `${field} must not contain line breaks.`;
  return value.trim() ? null : `${field} must not be empty.`;
}
