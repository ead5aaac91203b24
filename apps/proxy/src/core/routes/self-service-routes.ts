import type { ChangePasswordRequest, EmailVerifyRequest } from '@svc/sdk';
import type { Exchange } from '../exchange';
import type { ProxyContext } from '../session';
import { optionalString, pick, proofOf } from './bodies';
import { forUser } from './account-routes';
import { answerSignIn } from './sign-in-routes';
import type { ProxyRoute } from './route';

/** Ends the browser's session after a call that ended it upstream (sign out everywhere, account deleted). */
async function thenSignedOut<T>(ctx: ProxyContext, ex: Exchange, work: Promise<T>): Promise<T> {
  const result = await work;
  ctx.cookies.clear(ex);
  return result;
}

/** A POST that needs no session. */
function open(path: string, act: (ctx: ProxyContext, ex: Exchange) => Promise<void>): ProxyRoute {
  return { method: 'POST', path, handle: act };
}

/**
 * The user's own account behind the proxy (our addition, docs/decisions.md): devices, sign out
 * everywhere, password and e-mail changes, deleting the account, e-mail verification and the
 * magic-link code. Sensitive changes forward `currentPassword` / `totpCode` when given.
 */
export const selfServiceRoutes: ProxyRoute[] = [
  // Reads are POSTs too: for GET the contract's table has only `session`.
  forUser('/account/sessions', (ctx, _ex, call) => ctx.svc.sessionList(call)),
  forUser('/account/sessions/revoke', (ctx, ex, call) => ctx.svc.sessionRevoke(optionalString(ex.body, 'id') ?? '-', call)),
  forUser('/account/sessions/revoke-others', (ctx, _ex, call) => ctx.svc.sessionRevokeOthers(call)),
  forUser('/account/logout-all', (ctx, ex, call) => thenSignedOut(ctx, ex, ctx.svc.logoutAll(call))),
  forUser('/account/passkeys', (ctx, _ex, call) => ctx.svc.passkeyList(call)),
  forUser('/account/passkeys/remove', (ctx, ex, call) => ctx.svc.passkeyRevoke(optionalString(ex.body, 'id') ?? '-', call, proofOf(ex))),
  forUser('/account/password', (ctx, ex, call) => ctx.svc.passwordChange(pick(ex.body, ['currentPassword', 'totpCode', 'newPassword']) as unknown as ChangePasswordRequest, call)),
  forUser('/account/email', (ctx, ex, call) => ctx.svc.emailChange(pick(ex.body, ['newEmail', 'currentPassword', 'totpCode']) as { newEmail: string }, call)),
  forUser('/account/email/confirm', (ctx, ex, call) => ctx.svc.emailChangeConfirm(pick(ex.body, ['code']) as { code: string }, call)),
  forUser('/account/delete', (ctx, ex, call) => thenSignedOut(ctx, ex, ctx.svc.accountDelete(call, proofOf(ex)))),
  open('/email/verify', async (ctx, ex) => ex.ok(await ctx.svc.emailVerify(pick(ex.body, ['token', 'email', 'code']) as EmailVerifyRequest, ex.call()))),
  open('/email/verify/resend', async (ctx, ex) => ex.ok(await ctx.svc.emailVerifyResend(pick(ex.body, ['email']) as { email: string }, ex.call()))),
  open('/email/change/confirm', async (ctx, ex) => ex.ok(await ctx.svc.emailChangeConfirm(pick(ex.body, ['token']) as { token: string }, ex.call()))),
  open('/magic-link/code', async (ctx, ex) => answerSignIn(ctx, ex, await ctx.svc.magicLinkVerifyCode(pick(ex.body, ['email', 'code']) as { email: string; code: string }, ex.signInCall()))),
];
