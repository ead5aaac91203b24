import type { Passkey, SignInResult, User } from '@svc/core';
import { presentTokens } from './presenters';

/**
 * Any password-equivalent sign-in (login, magic link, OAuth exchange): the user with its tokens,
 * or, for a user with TOTP on, exactly `{ twoFactorRequired: true, twoFactorToken, methods }`
 * (the OpenAPI document). `presentUser` is the endpoint's own user shape.
 */
export function presentSignIn<T>(result: SignInResult, presentUser: (user: User) => T) {
  if (result.twoFactorRequired) {
    return { twoFactorRequired: true as const, twoFactorToken: result.twoFactorToken, methods: result.methods };
  }
  return { user: presentUser(result.user), ...presentTokens(result) };
}

/** A passkey as its owner sees it: never the public key or the credential's counter. */
export function presentPasskey(passkey: Passkey) {
  return {
    id: passkey.id,
    name: passkey.name,
    createdAt: passkey.createdAt.toISOString(),
    lastUsedAt: passkey.lastUsedAt ? passkey.lastUsedAt.toISOString() : null,
  };
}
