import { OAuthProviderError, type OAuthProfile } from '@svc/core';
import { fetchProviderJson } from './strict-fetch';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/**
 * An OpenID account from validated ID-token claims, completed from userinfo when the ID token
 * carries no address. Some providers send `email_verified` as the string "true"; anything else
 * that is not `true` counts as unverified.
 */
export function openIdProfile(issuer: string, claims: Json, userinfo: Json | null): OAuthProfile {
  const subject = text(claims.sub);
  if (!subject) throw new OAuthProviderError('ID token without sub');
  const source = text(claims.email) ? claims : (userinfo ?? claims);
  return { issuer, subject, email: text(source.email), emailVerified: source.email_verified === true || source.email_verified === 'true' };
}

/**
 * GitHub (docs/decisions.md#contract-clarifications): the account from `/user`, the address from `{userInfoUrl}/emails`, and only
 * the one that is primary AND verified. `/user`'s own `email` is the public profile address,
 * which GitHub does not vouch for, so it is never used.
 */
export async function gitHubProfile(issuer: string, userInfoUrl: string, accessToken: string, timeoutMs: number): Promise<OAuthProfile> {
  const headers = { Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' };
  const user = await fetchProviderJson(userInfoUrl, { accessToken, timeoutMs, headers });
  const id = isObject(user) ? user.id : undefined;
  if (!(typeof id === 'number' && Number.isSafeInteger(id)) && !text(id)) throw new OAuthProviderError('GitHub user without id');
  const emails = await fetchProviderJson(`${userInfoUrl.replace(/\/+$/, '')}/emails`, { accessToken, timeoutMs, headers });
  if (!Array.isArray(emails)) throw new OAuthProviderError('GitHub e-mail list is not a list');
  const primary = emails.find((e): e is Json => isObject(e) && e.primary === true && e.verified === true && !!text(e.email));
  return { issuer, subject: String(id), email: primary ? text(primary.email) : null, emailVerified: primary !== undefined };
}

/** Discord: `/users/@me` with its `verified` flag, which covers the account's address. */
export async function discordProfile(issuer: string, userInfoUrl: string, accessToken: string, timeoutMs: number): Promise<OAuthProfile> {
  const user = await fetchProviderJson(userInfoUrl, { accessToken, timeoutMs });
  if (!isObject(user) || !text(user.id)) throw new OAuthProviderError('Discord user without id');
  return { issuer, subject: text(user.id)!, email: text(user.email), emailVerified: user.verified === true };
}
