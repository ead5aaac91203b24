import type { AuthDeps } from './use-cases/deps';
import { listDeadMails, listSandboxOutbox } from './use-cases/email/outbox-admin';
import { acceptMagicLinkRequest, requestMagicLink, type MagicLinkRequestInput, type MagicLinkRequestOptions } from './use-cases/email/request-magic-link';
import { acceptPasswordResetRequest, requestPasswordReset } from './use-cases/email/request-password-reset';
import { updatePassword, type PasswordUpdateInput } from './use-cases/email/update-password';
import { magicLinkProject, verifyMagicLink } from './use-cases/email/verify-magic-link';
import type { ResolvedApiKey } from './use-cases/resolve-api-key';
import type { Project } from './domain/project';

/**
 * The e-mail flows (contract endpoints 6-9), bound to `deps`; part of createAuthService. The
 * requests only enqueue mail; `deliverOutbox` (run by a worker) sends it.
 */
export function emailService(deps: AuthDeps) {
  return {
    magicLink: {
      request: (key: ResolvedApiKey, input: MagicLinkRequestInput, options?: MagicLinkRequestOptions) =>
        requestMagicLink(deps, key.scope, key.project, input, options),
      /** Checks the project now; returns the rest, to run after answering (see acceptMagicLinkRequest). */
      accept: (key: ResolvedApiKey, input: MagicLinkRequestInput, options?: MagicLinkRequestOptions) =>
        acceptMagicLinkRequest(deps, key.scope, key.project, input, options),
      /** The project named by a link's `project` query (no API key on verify); unknown -> invalid_magic_link. */
      project: (projectId: string) => magicLinkProject(deps, projectId),
      verify: (project: Project, token: string) => verifyMagicLink(deps, project, token),
    },
    passwordReset: {
      request: (key: ResolvedApiKey, input: { email: string }) => requestPasswordReset(deps, key.scope, key.project, input),
      accept: (key: ResolvedApiKey, input: { email: string }) => acceptPasswordResetRequest(deps, key.scope, key.project, input),
      update: (key: ResolvedApiKey, input: PasswordUpdateInput) => updatePassword(deps, key.scope, key.project, input),
    },
  };
}

/** The admin side of the outbox: the sandbox mailbox and the dead letters. */
export function emailAdminService(deps: AuthDeps) {
  return {
    sandboxOutbox: (projectId: string, query: { email: string; limit?: number }) => listSandboxOutbox(deps, projectId, query),
    deadMails: (projectId: string, limit?: number) => listDeadMails(deps, projectId, limit),
  };
}
