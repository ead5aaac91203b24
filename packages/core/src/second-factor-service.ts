import type { SignInClient } from './domain/known-device';
import type { Passkey } from './domain/passkey';
import type { AuthServiceDeps, PasskeyDeps, TotpDeps } from './use-cases/deps';
import { currentSession } from './use-cases/account/current-session';
import { requireRecentSignIn, type Reauthentication } from './use-cases/account/recent-sign-in';
import { logInWithPasskey, passkeyLoginOptions } from './use-cases/passkeys/log-in-with-passkey';
import { listPasskeys, passkeyRegistrationOptions, registerPasskey, removePasskey } from './use-cases/passkeys/register-passkey';
import type { ResolvedApiKey } from './use-cases/resolve-api-key';
import { confirmTotp, disableTotp, startTotp } from './use-cases/two-factor/manage-totp';
import { verifyTwoFactor, type VerifyTwoFactorInput } from './use-cases/two-factor/verify-two-factor';

/**
 * Calls that act for a signed-in user take its access token and load the live user exactly as
 * /me does (session not revoked, user not banned).
 */
function signedInUser(deps: AuthServiceDeps) {
  return async (key: ResolvedApiKey, accessToken: string) => (await currentSession(deps, key.scope, accessToken)).user;
}

/**
 * The same, for a sensitive change: the session's sign-in must be recent, or `proof` must prove a
 * factor now (requireRecentSignIn).
 */
function recentlySignedInUser(deps: AuthServiceDeps) {
  return async (key: ResolvedApiKey, accessToken: string, proof?: Reauthentication) => {
    const current = await currentSession(deps, key.scope, accessToken);
    await requireRecentSignIn(deps, key.scope, key.project, current, proof);
    return current.user;
  };
}

/** The TOTP operations (the OpenAPI document), bound to `deps`; part of createAuthService with the TOTP capability. */
export function totpService(deps: AuthServiceDeps & TotpDeps) {
  const userOf = signedInUser(deps);
  const recentUserOf = recentlySignedInUser(deps);
  return {
    totp: {
      /** Turning TOTP on starts here, so this is where a recent sign-in is needed: the secret goes only to its owner. */
      start: async (key: ResolvedApiKey, accessToken: string, proof?: Reauthentication) => startTotp(deps, key.scope, key.project, await recentUserOf(key, accessToken, proof)),
      confirm: async (key: ResolvedApiKey, accessToken: string, code: string) => confirmTotp(deps, key.scope, await userOf(key, accessToken), code),
      disable: async (key: ResolvedApiKey, accessToken: string, code: string) => disableTotp(deps, key.scope, await userOf(key, accessToken), code),
      /** Redeems a login challenge (API key only). */
      verify: (key: ResolvedApiKey, input: VerifyTwoFactorInput, options?: { client?: SignInClient }) => verifyTwoFactor(deps, key.scope, key.project, input, options),
    },
  };
}

/** The passkey operations, bound to `deps`; part of createAuthService with the passkey capability. */
export function passkeyService(deps: AuthServiceDeps & PasskeyDeps) {
  const userOf = signedInUser(deps);
  const recentUserOf = recentlySignedInUser(deps);
  return {
    passkeys: {
      /**
       * Adding a passkey starts here, so this is where a recent sign-in is needed: without a
       * challenge no attestation can be registered.
       */
      registrationOptions: async (key: ResolvedApiKey, accessToken: string, proof?: Reauthentication) =>
        passkeyRegistrationOptions(deps, key.scope, key.project, await recentUserOf(key, accessToken, proof)),
      register: async (key: ResolvedApiKey, accessToken: string, input: { response: unknown; name?: string }): Promise<Passkey> =>
        registerPasskey(deps, key.scope, key.project, await userOf(key, accessToken), input),
      list: async (key: ResolvedApiKey, accessToken: string) => listPasskeys(deps, key.scope, await userOf(key, accessToken)),
      remove: async (key: ResolvedApiKey, accessToken: string, id: string, proof?: Reauthentication) => removePasskey(deps, key.scope, await recentUserOf(key, accessToken, proof), id),
      /** Sign-in (API key only). */
      loginOptions: (key: ResolvedApiKey, input: { email: string }) => passkeyLoginOptions(deps, key.scope, key.project, input),
      logIn: (key: ResolvedApiKey, input: { challengeId: string; email: string; response: unknown }, options?: { client?: SignInClient }) =>
        logInWithPasskey(deps, key.scope, key.project, input, options),
    },
  };
}
