import type { AuthServiceDeps } from './use-cases/deps';
import { currentSession } from './use-cases/account/current-session';
import { changePassword, type ChangePasswordInput } from './use-cases/account/change-password';
import { deleteAccount } from './use-cases/account/delete-account';
import type { Reauthentication } from './use-cases/account/recent-sign-in';
import { listSessions, logOutEverywhere, revokeOtherSessions, revokeSession } from './use-cases/account/devices';
import type { ResolvedApiKey } from './use-cases/resolve-api-key';

/**
 * What signed-in users do with their own account (docs/security.md, "Devices"): every call takes
 * the access token and acts for its live session. Part of every service (core parts only).
 */
export function accountService(deps: AuthServiceDeps) {
  const sessionOf = (key: ResolvedApiKey, accessToken: string) => currentSession(deps, key.scope, accessToken);
  return {
    sessions: {
      list: async (key: ResolvedApiKey, accessToken: string) => listSessions(deps, key.scope, await sessionOf(key, accessToken)),
      revoke: async (key: ResolvedApiKey, accessToken: string, sessionId: string) => revokeSession(deps, key.scope, await sessionOf(key, accessToken), sessionId),
      revokeOthers: async (key: ResolvedApiKey, accessToken: string) => revokeOtherSessions(deps, key.scope, await sessionOf(key, accessToken)),
      revokeAll: async (key: ResolvedApiKey, accessToken: string) => logOutEverywhere(deps, key.scope, await sessionOf(key, accessToken)),
    },
    account: {
      changePassword: async (key: ResolvedApiKey, accessToken: string, input: ChangePasswordInput) => changePassword(deps, key.scope, key.project, await sessionOf(key, accessToken), input),
      delete: async (key: ResolvedApiKey, accessToken: string, proof?: Reauthentication) => deleteAccount(deps, key.scope, key.project, await sessionOf(key, accessToken), proof),
    },
  };
}
