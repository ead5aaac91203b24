import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { SessionError } from './session-error';
import type { DeviceSession, Reauthentication, Session, SignedIn, SignInResult, TotpSetup } from './types';

export interface SessionClientOptions {
  /** Where the proxy's routes live; must equal its `routeBasePath`. Default `/api/session`. */
  routePrefix?: string;
  /** A fetch implementation (default: the page's). */
  fetch?: typeof fetch;
}

/** The client returned by {@link createSessionClient}. */
export type SessionClient = ReturnType<typeof createSessionClient>;

// Only what the client needs of the page, so it type-checks without the DOM library.
type PageLocation = { assign(url: string): void };

/**
 * A small browser client of the svc session proxy. Tokens stay in the proxy's HttpOnly cookies:
 * this client only sends JSON to same-origin routes and reads `{ data }` or `{ error, message }`.
 * Failures reject with {@link SessionError}.
 */
export function createSessionClient(options: SessionClientOptions = {}) {
  const prefix = (options.routePrefix ?? '/api/session').replace(/\/+$/, '');
  // Called through a wrapper: some browsers refuse `fetch` called with a `this` other than the window.
  const doFetch = options.fetch ?? ((input: string, init?: RequestInit) => globalThis.fetch(input, init));

  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await doFetch(`${prefix}/${path}`, {
        method,
        credentials: 'same-origin',
        headers: method === 'POST' ? { 'Content-Type': 'application/json', Accept: 'application/json' } : { Accept: 'application/json' },
        body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
      });
    } catch (error) {
      throw new SessionError('network_error', 0, `The sign-in service could not be reached (${(error as Error).message}).`);
    }
    const payload = (await response.json().catch(() => null)) as { data?: T; error?: string; message?: string } | null;
    if (response.ok && payload && 'data' in payload) return payload.data as T;
    const retryAfter = Number(response.headers.get('retry-after') ?? NaN);
    throw new SessionError(
      payload?.error ?? `http_${response.status}`,
      response.status,
      payload?.message ?? `Unexpected answer (HTTP ${response.status}).`,
      Number.isFinite(retryAfter) ? retryAfter : undefined,
    );
  }

  return {
    /** The signed-in user, or null when there is no session (the proxy refreshes expired cookies here). */
    session: async (): Promise<Session | null> => {
      try {
        return await call<Session>('GET', 'session');
      } catch (error) {
        if (error instanceof SessionError && error.status === 401) return null;
        throw error;
      }
    },
    /** Creates an account and signs it in. */
    signup: (input: { email: string; password: string; meta?: Record<string, unknown> }) => call<SignedIn>('POST', 'signup', input),
    /** Password sign-in; answers a {@link TwoFactorChallenge} when the account has TOTP on. */
    login: (input: { email: string; password: string }) => call<SignInResult>('POST', 'login', input),
    /** Completes a challenged sign-in with an authenticator code (or a recovery code). */
    verifyTotp: (input: { twoFactorToken: string; code: string }) => call<SignedIn>('POST', 'totp', input),
    /** Signs out: the cookies are cleared and the session revoked. */
    logout: async (): Promise<void> => {
      await call('POST', 'logout');
    },
    /** Rotates the session cookies now (`session()` also does it when needed). */
    refresh: () => call<{ expiresIn: number }>('POST', 'refresh'),
    /**
     * Starts social sign-in: asks for the provider's authorization URL and sends the page there
     * (unless `navigate` is false). The provider comes back to `redirectUrl` with `?code=`; pass
     * that code to {@link oauthExchange}.
     */
    oauthStart: async (provider: string, redirectUrl?: string, options: { navigate?: boolean } = {}): Promise<string> => {
      const { authorizationUrl } = await call<{ authorizationUrl: string }>('POST', `oauth/${encodeURIComponent(provider)}`, redirectUrl ? { redirectUrl } : {});
      const location = (globalThis as { location?: PageLocation }).location;
      if (options.navigate !== false && location) location.assign(authorizationUrl);
      return authorizationUrl;
    },
    /** Finishes social sign-in with the `code` from the redirect. */
    oauthExchange: (code: string) => call<SignInResult>('POST', 'oauth/exchange', { code }),
    /** Passkey sign-in: the browser asks the authenticator, the proxy verifies and sets the cookies. */
    passkeyLogin: async (email: string): Promise<SignedIn> => {
      const { challengeId, options } = await call<{ challengeId: string; options: unknown }>('POST', 'passkey/login/options', { email });
      const response = await startAuthentication({ optionsJSON: options as Parameters<typeof startAuthentication>[0]['optionsJSON'] });
      return call<SignedIn>('POST', 'passkey/login/verify', { challengeId, email, response });
    },
    /** Answers a hosted-OIDC consent screen: open `redirectUrl` to go back to the application. */
    oidcGrant: (input: { requestToken: string; approved: boolean; scopes?: string[] }) => call<{ redirectUrl: string }>('POST', 'oidc/grant', input),

    /** Signed in: starts TOTP enrolment (a sign-in that is not recent needs `proof`). */
    totpSetup: (proof: Reauthentication = {}) => call<TotpSetup>('POST', 'account/totp/start', proof),
    /** Signed in: turns TOTP on with a first code; answers single-use recovery codes (show them once). */
    totpConfirm: (code: string) => call<{ recoveryCodes: string[] }>('POST', 'account/totp/confirm', { code }),
    /** Signed in: turns TOTP off (needs a current code). */
    totpDisable: (code: string) => call<{ success: true }>('POST', 'account/totp/disable', { code }),
    /** Signed in: creates a passkey on this device and registers it. */
    passkeyRegister: async (name?: string, proof: Reauthentication = {}): Promise<{ passkey: { id: string; name?: string | null } }> => {
      const { options } = await call<{ options: unknown }>('POST', 'account/passkeys/options', proof);
      const response = await startRegistration({ optionsJSON: options as Parameters<typeof startRegistration>[0]['optionsJSON'] });
      return call('POST', 'account/passkeys/verify', { response, name });
    },
    /** Signed in: the user's passkeys. */
    passkeys: () => call<{ passkeys: { id: string; name?: string | null; createdAt?: string; lastUsedAt?: string | null }[] }>('POST', 'account/passkeys'),
    /** Signed in: removes a passkey. */
    passkeyRemove: (id: string, proof: Reauthentication = {}) => call<{ success: true }>('POST', 'account/passkeys/remove', { id, ...proof }),

    /** Signed in: the user's sessions (devices), this one marked `current`. */
    sessions: async () => (await call<{ sessions: DeviceSession[] }>('POST', 'account/sessions')).sessions,
    /** Signed in: signs one session out. */
    revokeSession: (id: string) => call<{ success: true }>('POST', 'account/sessions/revoke', { id }),
    /** Signed in: signs every other session out. */
    revokeOtherSessions: () => call<{ revoked: number }>('POST', 'account/sessions/revoke-others'),
    /** Signs out everywhere, this browser too. */
    logoutEverywhere: () => call<{ revoked: number }>('POST', 'account/logout-all'),
    /** Signed in: changes the password (the current one proves it); the other sessions end. */
    changePassword: (input: { currentPassword: string; newPassword: string }) => call<{ success: true }>('POST', 'account/password', input),
    /** Signed in: mails a link and a code to the new address; it changes once confirmed. */
    changeEmail: (newEmail: string, proof: Reauthentication = {}) => call<{ success: true }>('POST', 'account/email', { newEmail, ...proof }),
    /** Signed in: confirms the new address with the mailed code. */
    confirmEmailChange: (code: string) => call<{ user: { id: string; email: string; emailVerified: true } }>('POST', 'account/email/confirm', { code }),
    /** Signed in: deletes the account (and signs this browser out). */
    deleteAccount: (proof: Reauthentication = {}) => call<{ success: true }>('POST', 'account/delete', proof),
    /** Confirms a sign-up's address with the link's token or the mailed code. */
    verifyEmail: (input: { token: string } | { email: string; code: string }) => call<{ user: { id: string; email: string; emailVerified: true } }>('POST', 'email/verify', input),
    /** Mails the verification link and code again; always succeeds. */
    resendVerification: (email: string) => call<{ success: true }>('POST', 'email/verify/resend', { email }),
    /** Signs in with the code of the latest magic-link mail. */
    magicLinkCode: (input: { email: string; code: string }) => call<SignInResult>('POST', 'magic-link/code', input),
    /** Mails a sign-in link (and code) to the address; always succeeds (no account enumeration). */
    magicLink: (input: { email: string; createIfNotExists?: boolean }) => call<{ success: true }>('POST', 'magic-link', input),
    /** On the page the magic link opens: signs in with its `token` and `project` (single use). */
    verifyMagicLink: (input: { token: string; project: string }) => call<SignInResult>('POST', 'magic-link/verify', input),
    /** Mails a password-reset link; always succeeds. */
    passwordReset: (email: string) => call<{ success: true }>('POST', 'password/reset', { email }),
    /** On the page the reset link opens: sets the new password with its `token`; every session of the user ends. */
    passwordUpdate: (input: { token: string; newPassword: string }) => call<{ success: true }>('POST', 'password/update', input),
  };
}
