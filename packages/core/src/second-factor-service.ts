import type { SignInClient } from './domain/known-device';
import type { Passkey } from './domain/passkey';
import type { AuthServiceDeps, PasskeyDeps, TotpDeps } from './use-cases/deps';
import { getMe } from './use-cases/get-me';
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
  return (key: ResolvedApiKey, accessToken: string) => getMe(deps, key.scope, accessToken);
}

/** The TOTP operations (the OpenAPI document), bound to `deps`; part of createAuthService with the TOTP capability. */
export function totpService(deps: AuthServiceDeps & TotpDeps) {
  const userOf = signedInUser(deps);
  return {
    totp: {
      start: async (key: ResolvedApiKey, accessToken: string) =>
        startTotp(deps, key.scope, key.project, await userOf(key, accessToken)),
      confirm: async (key: ResolvedApiKey, accessToken: string, code: string) =>
        confirmTotp(deps, key.scope, await userOf(key, accessToken), code),
      disable: async (key: ResolvedApiKey, accessToken: string, code: string) =>
        disableTotp(deps, key.scope, await userOf(key, accessToken), code),
      /** Redeems a login challenge (API key only). */
      verify: (key: ResolvedApiKey, input: VerifyTwoFactorInput, options?: { client?: SignInClient }) =>
        verifyTwoFactor(deps, key.scope, key.project, input, options),
    },
  };
}

/** The passkey operations, bound to `deps`; part of createAuthService with the passkey capability. */
export function passkeyService(deps: AuthServiceDeps & PasskeyDeps) {
  const userOf = signedInUser(deps);
  return {
    passkeys: {
      registrationOptions: async (key: ResolvedApiKey, accessToken: string) =>
        passkeyRegistrationOptions(deps, key.scope, key.project, await userOf(key, accessToken)),
      register: async (key: ResolvedApiKey, accessToken: string, input: { response: unknown; name?: string }): Promise<Passkey> =>
        registerPasskey(deps, key.scope, key.project, await userOf(key, accessToken), input),
      list: async (key: ResolvedApiKey, accessToken: string) => listPasskeys(deps, key.scope, await userOf(key, accessToken)),
      remove: async (key: ResolvedApiKey, accessToken: string, id: string) =>
        removePasskey(deps, key.scope, await userOf(key, accessToken), id),
      /** Sign-in (API key only). */
      loginOptions: (key: ResolvedApiKey, input: { email: string }) => passkeyLoginOptions(deps, key.scope, key.project, input),
      logIn: (key: ResolvedApiKey, input: { challengeId: string; email: string; response: unknown }, options?: { client?: SignInClient }) =>
        logInWithPasskey(deps, key.scope, key.project, input, options),
    },
  };
}
