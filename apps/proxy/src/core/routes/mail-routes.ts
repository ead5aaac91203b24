import type { MagicLinkRequest, PasswordUpdateRequest } from '@svc/sdk';
import type { Exchange } from '../exchange';
import type { ProxyContext } from '../session';
import { optionalString, pick } from './bodies';
import type { ProxyRoute } from './route';
import { answerSignIn } from './sign-in-routes';

/** A POST that needs no session. */
function open(path: string, act: (ctx: ProxyContext, ex: Exchange) => Promise<void>): ProxyRoute {
  return { method: 'POST', path, handle: act };
}

/**
 * Magic links and password resets from a browser app (our addition, docs/decisions.md): ask for
 * the mail, and on the page the mail links to, sign in with the link's token or set the new
 * password. The API answers the requests `success` whether or not the address has an account.
 */
export const mailRoutes: ProxyRoute[] = [
  open('/magic-link', async (ctx, ex) => ex.ok(await ctx.svc.magicLink(pick(ex.body, ['email', 'createIfNotExists']) as unknown as MagicLinkRequest, ex.call()))),
  // The link carries `token` and `project`; the page passes both on. Signs in (cookies), or answers the TOTP challenge.
  open('/magic-link/verify', async (ctx, ex) => {
    const query = { token: optionalString(ex.body, 'token') ?? '', project: optionalString(ex.body, 'project') ?? '' };
    answerSignIn(ctx, ex, await ctx.svc.verifyMagicLink(query, ex.signInCall()));
  }),
  open('/password/reset', async (ctx, ex) => ex.ok(await ctx.svc.passwordReset(pick(ex.body, ['email']) as { email: string }, ex.call()))),
  // Every session of the user ends; the page signs in again with the new password.
  open('/password/update', async (ctx, ex) => ex.ok(await ctx.svc.passwordUpdate(pick(ex.body, ['token', 'newPassword']) as unknown as PasswordUpdateRequest, ex.call()))),
];
