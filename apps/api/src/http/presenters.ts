import type { ApiKeyRecord, AuditEntry, DeviceSession, Project, TokenBundle, User } from '@svc/core';

// Responses are built field by field from these functions only, so a new column on a record
// (a hash, a ban date) can never reach a client by accident.

const iso = (date: Date): string => date.toISOString();
const isoOrNull = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** The fields every user shape starts with, in the contract's order. */
function userIdentity(user: User) {
  return { id: user.id, email: user.email, role: user.role, meta: user.meta };
}

/** Contract shape UserSignup. */
export function presentUserSignup(user: User) {
  return { ...userIdentity(user), createdAt: iso(user.createdAt) };
}

/** Contract shape UserLogin. */
export function presentUserLogin(user: User) {
  return { ...userIdentity(user), lastLoginAt: isoOrNull(user.lastLoginAt) };
}

/** Contract shape UserMe. */
export function presentUserMe(user: User) {
  return { ...userIdentity(user), emailVerified: user.emailVerified, createdAt: iso(user.createdAt), lastLoginAt: isoOrNull(user.lastLoginAt) };
}

/** The admin API's view of a user: UserMe's fields and the ban, never the password hash. */
export function presentAdminUser(user: User) {
  return {
    ...userIdentity(user),
    emailVerified: user.emailVerified,
    banned: user.bannedAt !== null,
    bannedAt: isoOrNull(user.bannedAt),
    createdAt: iso(user.createdAt),
    lastLoginAt: isoOrNull(user.lastLoginAt),
  };
}

/** A project as the admin API shows it. */
export function presentProject(project: Project) {
  return {
    id: project.id,
    name: project.name,
    plan: project.plan,
    allowedOrigins: project.allowedOrigins,
    defaultMeta: project.defaultMeta,
    redirectUrls: project.redirectUrls,
    magicLinkUrl: project.magicLinkUrl,
    passwordResetUrl: project.passwordResetUrl,
    oidcLoginUrl: project.oidcLoginUrl,
    userLimit: project.userLimit,
    webauthn: project.webauthn,
    emailTemplates: project.emailTemplates,
    accessTokenTtlSeconds: project.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: project.refreshTokenTtlSeconds,
    refreshReuseGraceSeconds: project.refreshReuseGraceSeconds,
    absoluteSessionLifetimeSeconds: project.absoluteSessionLifetimeSeconds,
    rejectCommonPasswords: project.rejectCommonPasswords,
    rateLimits: project.rateLimits,
    auditRetentionDays: project.auditRetentionDays,
    refreshReuseResponse: project.refreshReuseResponse,
    refreshReuseNotice: project.refreshReuseNotice,
    recentSignInSeconds: project.recentSignInSeconds,
    emailVerification: project.emailVerification,
    emailVerificationUrl: project.emailVerificationUrl,
    createdAt: iso(project.createdAt),
    updatedAt: iso(project.updatedAt),
  };
}

/** An API key without its hash: the key itself is shown only once, at creation. */
export function presentApiKey(key: ApiKeyRecord) {
  return { id: key.id, environment: key.environment, suffix: key.suffix, createdAt: iso(key.createdAt), revokedAt: isoOrNull(key.revokedAt) };
}

/** The contract's token bundle: exactly accessToken, refreshToken, expiresIn. */
export function presentTokens(tokens: TokenBundle) {
  return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresIn: tokens.expiresIn };
}

/** An audit entry as the admin API and the CLI show it (its expiry is housekeeping, not shown). */
export function presentAuditEntry(entry: AuditEntry) {
  return {
    id: entry.id,
    type: entry.type,
    at: iso(entry.at),
    userId: entry.userId,
    actor: entry.actor,
    clientAddress: entry.clientAddress,
    userAgent: entry.userAgent,
    requestId: entry.requestId,
    data: entry.data,
  };
}

/** One of the user's sessions as GET /api/auth/sessions shows it. */
export function presentDeviceSession(session: DeviceSession) {
  return {
    id: session.id,
    createdAt: iso(session.createdAt),
    lastUsedAt: iso(session.lastUsedAt),
    address: session.address,
    userAgent: session.userAgent,
    current: session.current,
  };
}
