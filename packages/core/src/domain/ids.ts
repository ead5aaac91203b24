/**
 * Every id the service makes (projects, users, sessions, keys, clients, passkeys) is a random
 * UUID in its canonical form: lower-case and hyphenated, as Random.uuid writes it. Stores compare
 * ids as written, so any other spelling (upper case, braces, no hyphens) names nothing: the
 * edges answer it as "not found" without a lookup (docs/decisions.md, "One home per rule").
 */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Characters in a canonical UUID. */
export const UUID_LENGTH = 36;

/** True for an id in the form the service writes: a canonical, lower-case UUID. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && CANONICAL_UUID.test(value);
}
