export type UserMeta = Record<string, unknown>;

export const DEFAULT_ROLE = 'user';

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

/** E-mails are trimmed and lower-cased before storage and lookup (DESIGN §4). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Sign-up meta: the request's meta over the project's default meta; the request wins (DESIGN §14). */
export function mergeMeta(defaults: UserMeta, requested: UserMeta | undefined): UserMeta {
  return { ...structuredClone(defaults), ...(requested ? structuredClone(requested) : {}) };
}

export function isBanned(user: Pick<User, 'bannedAt'>): boolean {
  return user.bannedAt !== null;
}

/** Masks an address for logs: never log a full e-mail (DESIGN §4a). */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}
