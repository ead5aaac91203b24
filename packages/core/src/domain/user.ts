import { jsonObjectProblem } from './plain-json';

export type UserMeta = Record<string, unknown>;

export const DEFAULT_ROLE = 'user';

/** Longest role name; a role travels in every access token (`role` claim). */
export const MAX_ROLE = 64;
const ROLE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

/**
 * Why `role` cannot be a user's role: a role is a short name (letters, digits, `_ . : -`, starting
 * with a letter or digit, at most {@link MAX_ROLE} characters) that applications compare in their
 * authorisation checks, so no spaces or symbols that read differently elsewhere. Null when it can.
 */
export function userRoleProblem(role: unknown): string | null {
  if (typeof role !== 'string') return 'role must be a string.';
  if (role.length === 0 || role.length > MAX_ROLE) return `role must be 1 to ${MAX_ROLE} characters.`;
  if (!ROLE_PATTERN.test(role)) return 'role may hold only letters, digits and _ . : - (starting with a letter or digit).';
  return null;
}

/** What an operator may change on a user (the admin API's PATCH); undefined fields stay. */
export interface UserProfileChanges {
  role?: string;
  meta?: UserMeta;
  emailVerified?: boolean;
}

/** RFC 5321 caps a forward path at 256 octets, i.e. an address at 254. */
export const MAX_EMAIL = 254;

/** Meta is application data for the token holder, not a document store: at most this deep. */
export const MAX_META_DEPTH = 5;

export interface User {
  id: string;
  email: string;
  /** null for passwordless users (magic link, social sign-in). */
  passwordHash: string | null;
  role: string;
  meta: UserMeta;
  emailVerified: boolean;
  bannedAt: Date | null;
  createdAt: Date;
  lastLoginAt: Date | null;
}

/** E-mails are trimmed and lower-cased before storage and lookup: one address, one account. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Why `meta` (a user's, or a project's default meta, named `field`) cannot be kept: not a JSON
 * object, a prototype-reaching key, or nested deeper than {@link MAX_META_DEPTH}; or null.
 */
export function userMetaProblem(meta: unknown, field: string): string | null {
  return jsonObjectProblem(meta, field, MAX_META_DEPTH);
}

/** What a new account is made of; everything else starts the same for every way of signing up. */
export interface NewUserFields {
  id: string;
  email: string;
  /** null for passwordless users (magic link, social sign-in). */
  passwordHash: string | null;
  /** Verified from the start only when the address was proved on the way in (a provider vouched). */
  emailVerified: boolean;
  /** The project's default meta, and the request's own meta over it. */
  defaultMeta: UserMeta;
  meta?: UserMeta;
  createdAt: Date;
}

/** A new account: the default role, not banned, never signed in, the e-mail normalised. */
export function newUser(fields: NewUserFields): User {
  return {
    id: fields.id,
    email: normalizeEmail(fields.email),
    passwordHash: fields.passwordHash,
    role: DEFAULT_ROLE,
    meta: mergeMeta(fields.defaultMeta, fields.meta),
    emailVerified: fields.emailVerified,
    bannedAt: null,
    createdAt: fields.createdAt,
    lastLoginAt: null,
  };
}

/** Sign-up meta: the request's meta over the project's default meta; the request wins (docs/decisions.md#contract-clarifications). */
export function mergeMeta(defaults: UserMeta, requested: UserMeta | undefined): UserMeta {
  return { ...structuredClone(defaults), ...(requested ? structuredClone(requested) : {}) };
}

export function isBanned(user: Pick<User, 'bannedAt'>): boolean {
  return user.bannedAt !== null;
}

/** Masks an address for logs: never log a full e-mail (docs/security.md). */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

/**
 * A signed-in change of password must give the current one when the user has one (OWASP ASVS
 * 6.2.3), whatever the session's age; a user without one (magic link, social) sets a first
 * password under the recent sign-in rule alone.
 */
export function needsCurrentPassword(user: Pick<User, 'passwordHash'>): boolean {
  return user.passwordHash !== null;
}
