import type { Exchange } from './exchange';
import type { ResolvedProxyOptions } from './options';

/** The contract: the refresh cookie lives 60 days (the API's default refresh lifetime too). */
export const REFRESH_COOKIE_MAX_AGE_SECONDS = 60 * 24 * 60 * 60;

/** The device cookie lives as long as browsers allow (they cap Max-Age at 400 days). */
export const DEVICE_COOKIE_MAX_AGE_SECONDS = 400 * 24 * 60 * 60;

/** Where a copy of a cookie may sit: a path and, unless host-only, a domain. */
interface Place {
  path: string;
  domain?: string;
}

const MAX_PATH_PLACES = 12;
const MAX_PARENT_DOMAINS = 4;

/**
 * Every place a cookie sent with this request can have been set at: each path that is a prefix
 * of the request path (with and without the trailing slash), host-only and for each parent
 * domain of the host. A copy set anywhere else would not have been sent.
 */
function placesOf(requestPath: string, host: string): Place[] {
  const paths = ['/'];
  const segments = requestPath.split('/').filter(Boolean);
  let prefix = '';
  for (const [index, segment] of segments.entries()) {
    prefix += `/${segment}`;
    paths.push(prefix);
    if (index < segments.length - 1) paths.push(`${prefix}/`);
  }
  const domains: Array<string | undefined> = [undefined, ...parentDomains(host)];
  return paths.slice(0, MAX_PATH_PLACES).flatMap((path) => domains.map((domain) => ({ path, domain })));
}

/** `app.example.com` -> `example.com`; none for an IP address or a one-label name. */
function parentDomains(host: string): string[] {
  if (/^[\d.]+$/.test(host) || host.includes(':')) return [];
  const labels = host.split('.');
  const parents: string[] = [];
  for (let from = 1; from <= labels.length - 2 && parents.length < MAX_PARENT_DOMAINS; from++) parents.push(labels.slice(from).join('.'));
  return parents;
}

/**
 * Writes the session cookies into an answer. Every attribute is written out explicitly (no
 * framework defaults): HttpOnly so page scripts never see a token, Path=/ and SameSite=Lax per
 * the contract, Secure in production; never a Domain, so each cookie belongs to this host only.
 */
export class SessionCookies {
  constructor(private readonly options: Pick<ResolvedProxyOptions, 'cookieNames' | 'secureCookies' | 'hostPrefixed' | 'publicOrigin'>) {}

  /**
   * Sets both session cookies from a token bundle: access for `expiresIn` seconds, refresh for 60
   * days, plus the device cookie when this request issued one. Planted copies go first.
   */
  set(ex: Exchange, tokens: { accessToken: string; refreshToken: string; expiresIn: number }): void {
    const { access, refresh, device } = this.options.cookieNames;
    if (ex.cookies.duplicated) this.expire(ex, (place) => place.path !== '/' || place.domain !== undefined);
    ex.answer.cookies.push(this.serialize(access, tokens.accessToken, tokens.expiresIn), this.serialize(refresh, tokens.refreshToken, REFRESH_COOKIE_MAX_AGE_SECONDS));
    const issued = ex.issuedDeviceId;
    if (issued) ex.answer.cookies.push(this.serialize(device, issued, DEVICE_COOKIE_MAX_AGE_SECONDS));
  }

  /** Expires both session cookies (same attributes, so the browser matches and drops them); with copies, every copy it can name. */
  clear(ex: Exchange): void {
    if (ex.cleared) return;
    ex.cleared = true;
    if (ex.cookies.duplicated) this.expire(ex, () => true);
    else ex.answer.cookies.push(this.serialize(this.options.cookieNames.access, '', 0), this.serialize(this.options.cookieNames.refresh, '', 0));
  }

  private expire(ex: Exchange, keep: (place: Place) => boolean): void {
    // A `__Host-` cookie can only exist host-only at Path=/: there is nowhere else to look.
    const places = this.options.hostPrefixed ? [{ path: '/' }] : placesOf(ex.request.path, hostOf(this.options.publicOrigin ?? ex.request.origin()));
    for (const name of [this.options.cookieNames.access, this.options.cookieNames.refresh]) {
      for (const place of places) if (keep(place)) ex.answer.cookies.push(this.serialize(name, '', 0, place));
    }
  }

  private serialize(name: string, value: string, maxAgeSeconds: number, place: Place = { path: '/' }): string {
    let line = `${name}=${encodeURIComponent(value)}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; Path=${place.path}`;
    if (place.domain) line += `; Domain=${place.domain}`;
    line += '; HttpOnly; SameSite=Lax';
    return this.options.secureCookies ? `${line}; Secure` : line;
  }
}

function hostOf(origin: string): string {
  try {
    return new URL(origin).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
}
