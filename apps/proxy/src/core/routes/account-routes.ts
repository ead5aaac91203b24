import type { UserCallOptions } from '@svc/sdk';
import type { Exchange } from '../exchange';
import { currentSession, type ProxyContext } from '../session';
import { pick, proofOf } from './bodies';
import type { ProxyRoute } from './route';

/** The request's access token (refreshed if needed), or null after answering 401. */
async function signedIn(ctx: ProxyContext, ex: Exchange): Promise<UserCallOptions | null> {
  const session = await currentSession(ctx, ex);
  if (!session) ex.fail(401, 'invalid_token', 'No active session: sign in.');
  return session && { ...ex.call(), accessToken: session.accessToken };
}

/** A POST that acts for the signed-in user. */
export function forUser(path: string, act: (ctx: ProxyContext, ex: Exchange, call: UserCallOptions) => Promise<unknown>): ProxyRoute {
  return {
    method: 'POST',
    path,
    async handle(ctx, ex) {
      const call = await signedIn(ctx, ex);
      if (call) ex.ok(await act(ctx, ex, call));
    },
  };
}

/**
 * Our addition to the contract's table (POST only; docs/decisions.md): enrolment of a second
 * factor and of passkeys for the signed-in user, so a browser app behind the proxy can offer
 * "set up an authenticator app" and "add a passkey" without handling tokens itself.
 */
export const accountRoutes: ProxyRoute[] = [
  forUser('/account/totp/start', (ctx, ex, call) => ctx.svc.totpStart(call, proofOf(ex))),
  forUser('/account/totp/confirm', (ctx, ex, call) => ctx.svc.totpConfirm(pick(ex.body, ['code']) as { code: string }, call)),
  forUser('/account/totp/disable', (ctx, ex, call) => ctx.svc.totpDisable(pick(ex.body, ['code']) as { code: string }, call)),
  forUser('/account/passkeys/options', async (ctx, ex, call) => ({ options: await ctx.svc.passkeyRegisterOptions(call, proofOf(ex)) })),
  forUser('/account/passkeys/verify', (ctx, ex, call) => ctx.svc.passkeyRegisterVerify(pick(ex.body, ['response', 'name']) as { response: unknown }, call)),
];
