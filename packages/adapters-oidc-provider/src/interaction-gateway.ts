import { AuthError, type PendingOidcAuthorization } from '@svc/core';
import type { InteractionResults } from 'oidc-provider';
import type { Provider } from './oidc-module';

const gone = () => new AuthError('invalid_token', 'The request token is not valid.');
const epochNow = () => Math.floor(Date.now() / 1000);

/**
 * The authorization waiting behind an interaction uid: unfinished and unexpired, or null. The
 * interaction is oidc-provider's own record (artifact store), so any instance can answer.
 */
export async function pendingAuthorization(provider: Provider, uid: string): Promise<PendingOidcAuthorization | null> {
  const interaction = await provider.Interaction.find(uid);
  if (!interaction || interaction.result || interaction.exp <= epochNow()) return null;
  const params = interaction.params as { client_id?: unknown; scope?: unknown };
  if (typeof params.client_id !== 'string') return null;
  return {
    uid,
    clientId: params.client_id,
    requestedScopes: String(params.scope ?? '')
      .split(' ')
      .filter(Boolean),
  };
}

/**
 * Approves: a new grant holding exactly `scopes`, every other requested scope rejected (so the
 * consent prompt counts them as answered and tokens carry only the granted ones), and a login of
 * the user; the interaction stores the result for its resume URL to apply.
 */
export async function approveAuthorization(provider: Provider, uid: string, decision: { userId: string; scopes: string[] }): Promise<string> {
  const pending = await pendingAuthorization(provider, uid);
  if (!pending) throw gone();
  const grant = new provider.Grant({ accountId: decision.userId, clientId: pending.clientId });
  grant.addOIDCScope(decision.scopes.join(' '));
  const rejected = pending.requestedScopes.filter((scope) => !decision.scopes.includes(scope));
  if (rejected.length) grant.rejectOIDCScope(rejected.join(' '));
  const grantId = await grant.save();
  return finish(provider, uid, { login: { accountId: decision.userId }, consent: { grantId } });
}

/** Denies: the resume URL brings `access_denied` to the client's redirect_uri (no code). */
export async function denyAuthorization(provider: Provider, uid: string): Promise<string> {
  return finish(provider, uid, { error: 'access_denied', error_description: 'The user denied the authorization request.' });
}

/** What oidc-provider's interactionFinished does, without the browser's cookie (a backend calls us). */
async function finish(provider: Provider, uid: string, result: InteractionResults): Promise<string> {
  const interaction = await provider.Interaction.find(uid);
  const ttl = interaction ? interaction.exp - epochNow() : 0;
  if (!interaction || interaction.result || ttl <= 0) throw gone();
  interaction.result = result;
  await interaction.save(ttl);
  return interaction.returnTo;
}
