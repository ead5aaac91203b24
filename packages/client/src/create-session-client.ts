import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { SessionError } from './session-error';
import type { Session, SignedIn, SignInResult, TotpSetup } from './types';

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

    /** Signed in: starts TOTP enrolment. */
    totpSetup: () => call<TotpSetup>('POST', 'account/totp/start'),
    /** Signed in: turns TOTP on with a first code; answers single-use recovery codes (show them once). */
    totpConfirm: (code: string) => call<{ recoveryCodes: string[] }>('POST', 'account/totp/confirm', { code }),
    /** Signed in: turns TOTP off (needs a current code). */
    totpDisable: (code: string) => call<{ success: true }>('POST', 'account/totp/disable', { code }),
    /** Signed in: creates a passkey on this device and registers it. */
    passkeyRegister: async (name?: string): Promise<{ passkey: { id: string; name?: string | null } }> => {
      const { options } = await call<{ options: unknown }>('POST', 'account/passkeys/options');
      const response = await startRegistration({ optionsJSON: options as Parameters<typeof startRegistration>[0]['optionsJSON'] });
      return call('POST', 'account/passkeys/verify', { response, name });
    },
  };
}
