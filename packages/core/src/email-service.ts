import type { SignInOptions } from './use-cases/complete-first-factor';
import { isUuid } from './domain/ids';
import type { Project } from './domain/project';
import type { ChangeFeed } from './ports/change-feed';
import { cachedPerProject } from './use-cases/cached-lookup';
import type { AuthServiceDeps, MailDeps } from './use-cases/deps';
import { listDeadMails, listSandboxOutbox } from './use-cases/email/outbox-admin';
import { acceptMagicLinkRequest, requestMagicLink, type MagicLinkRequestInput, type MagicLinkRequestOptions } from './use-cases/email/request-magic-link';
import { acceptPasswordResetRequest, requestPasswordReset } from './use-cases/email/request-password-reset';
import { updatePassword, type PasswordUpdateInput } from './use-cases/email/update-password';
import { magicLinkOrigins, magicLinkProject, verifyMagicLink, verifyMagicLinkCode } from './use-cases/email/verify-magic-link';
import type { ResolvedApiKey } from './use-cases/resolve-api-key';
import { confirmEmailChange, requestEmailChange } from './use-cases/account/change-email';
import { currentSession } from './use-cases/account/current-session';
import type { Reauthentication } from './use-cases/account/recent-sign-in';
import { acceptEmailVerificationResend, verifyEmail, type EmailVerificationInput } from './use-cases/email/verify-email';

/** Same as API-key resolutions: a change of `allowedOrigins` drops the entry on its notice; 10 s is the safety net. */
const ORIGINS_CACHE = { ttlSeconds: 10, maxEntries: 10_000 };

/**
 * The e-mail flows (the magic-link and password-reset endpoints), bound to `deps`; part of createAuthService with the
 * mail capability. The requests only enqueue mail; `deliverOutbox` (run by a worker) sends it.
 */
export function emailService(deps: AuthServiceDeps & MailDeps, changes?: ChangeFeed) {
  // Cached, so a flood of verify calls does not become a flood of project queries.
  const origins = cachedPerProject(deps.clock, (projectId) => magicLinkOrigins(deps, projectId), ORIGINS_CACHE, changes);
  return {
    magicLink: {
      request: (key: ResolvedApiKey, input: MagicLinkRequestInput, options?: MagicLinkRequestOptions) => requestMagicLink(deps, key.scope, key.project, input, options),
      /** Checks the project now; returns the rest, to run after answering (see acceptMagicLinkRequest). */
      accept: (key: ResolvedApiKey, input: MagicLinkRequestInput, options?: MagicLinkRequestOptions) => acceptMagicLinkRequest(deps, key.scope, key.project, input, options),
      /** The project named by a link's `project` query (no API key on verify); unknown -> invalid_magic_link. */
      project: (projectId: string) => magicLinkProject(deps, projectId),
      /** The origins that may call verify for that project (empty = any), or null for no such project. */
      allowedOrigins: async (projectId: string) => (isUuid(projectId) ? origins(projectId) : null),
      verify: (project: Project, token: string, options?: SignInOptions) => verifyMagicLink(deps, project, token, options),
      /** The mail's 6-digit code instead of its link (API key). */
      verifyCode: (key: ResolvedApiKey, input: { email: string; code: string }, options?: SignInOptions) => verifyMagicLinkCode(deps, key.scope, key.project, input, options),
    },
    emailVerification: {
      verify: (key: ResolvedApiKey, input: EmailVerificationInput) => verifyEmail(deps, key.scope, input),
      /** Checks the project now; returns the mailing, to run after answering (acceptEmailVerificationResend). */
      acceptResend: (key: ResolvedApiKey, input: { email: string }) => acceptEmailVerificationResend(deps, key.scope, key.project, input),
    },
    emailChange: {
      /** Mails a link and a code to the new address (recent sign-in, or a proof in `input`). */
      request: async (key: ResolvedApiKey, accessToken: string, input: { newEmail: string } & Reauthentication) =>
        requestEmailChange(deps, key.scope, key.project, await currentSession(deps, key.scope, accessToken), input),
      /** The link's token (API key only). */
      confirmLink: (key: ResolvedApiKey, token: string) => confirmEmailChange(deps, key.scope, { token }),
      /** The mail's code, from the signed-in user. */
      confirmCode: async (key: ResolvedApiKey, accessToken: string, code: string) => confirmEmailChange(deps, key.scope, { current: await currentSession(deps, key.scope, accessToken), code }),
    },
    passwordReset: {
      request: (key: ResolvedApiKey, input: { email: string }) => requestPasswordReset(deps, key.scope, key.project, input),
      accept: (key: ResolvedApiKey, input: { email: string }) => acceptPasswordResetRequest(deps, key.scope, key.project, input),
      update: (key: ResolvedApiKey, input: PasswordUpdateInput) => updatePassword(deps, key.scope, key.project, input),
    },
  };
}

/** The admin side of the outbox: the sandbox mailbox and the dead letters. */
export function emailAdminService(deps: AuthServiceDeps & MailDeps) {
  return {
    sandboxOutbox: (projectId: string, query: { email: string; limit?: number }) => listSandboxOutbox(deps, projectId, query),
    deadMails: (projectId: string, limit?: number) => listDeadMails(deps, projectId, limit),
  };
}
