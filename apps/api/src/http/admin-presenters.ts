import type { UserDetail } from '@svc/core';
import { presentAdminUser } from './presenters';
import { presentPasskey } from './second-factor-presenters';

const iso = (date: Date): string => date.toISOString();

/**
 * One user in the admin API's detail view: the list shape, whether a password is set (never the
 * hash), the second factors, linked accounts and the newest sessions.
 */
export function presentUserDetail(detail: UserDetail) {
  return {
    ...presentAdminUser(detail.user),
    hasPassword: detail.user.passwordHash !== null,
    totpEnabled: detail.totpEnabled,
    passkeys: detail.passkeys.map(presentPasskey),
    identities: detail.identities.map((identity) => ({
      provider: identity.provider,
      subject: identity.subject,
      email: identity.email,
      createdAt: iso(identity.createdAt),
    })),
    sessions: detail.sessions.map((session) => ({
      id: session.id,
      createdAt: iso(session.createdAt),
      lastUsedAt: iso(session.lastUsedAt),
      revokedAt: session.revokedAt ? iso(session.revokedAt) : null,
      active: session.revokedAt === null,
      address: session.address,
      userAgent: session.userAgent,
    })),
  };
}
