import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { OAuth2Server } from 'oauth2-mock-server';

/** Claims the next sign-in puts into the ID token (and the access token). */
export type OpenIdClaims = { sub: string; email?: string; email_verified?: boolean | string } & Record<string, unknown>;

/**
 * An OpenID provider on loopback: `oauth2-mock-server` (discovery, JWKS, RS256 ID tokens, PKCE,
 * nonce), with the account to sign in as, the token requests it saw, a client-secret check it
 * lacks, and hooks to deny the next authorization or to break the next ID token.
 */
export async function startOpenIdProvider(client: { clientId: string; clientSecret: string }, account: OpenIdClaims) {
  // oauth2-mock-server is ESM-only: loaded with a real dynamic import (see openid-client-module.ts).
  const { OAuth2Server: Server } = await import('oauth2-mock-server');
  const server: OAuth2Server = new Server();
  // The key is made here and handed over as a JWK: under jest's VM modules, the library's own
  // generate() sees WebCrypto's JWK as an object of another realm and refuses it.
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  await server.issuer.keys.add({ ...jwk, alg: 'RS256', kid: randomBytes(8).toString('hex') });
  await server.start(0, '127.0.0.1');
  server.issuer.url = `http://127.0.0.1:${server.address().port}`;
  const state = {
    account,
    denyNext: false,
    /** Applied to the next ID token's claims, after the account's (e.g. a wrong `aud`). */
    tamperNext: null as null | ((claims: Record<string, unknown>) => void),
    tokenRequests: [] as Record<string, unknown>[],
  };
  server.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    Object.assign(token.payload, state.account);
    // The access token is signed first and carries `scope`; the ID token comes second, without.
    if (state.tamperNext && !('scope' in token.payload)) {
      state.tamperNext(token.payload);
      state.tamperNext = null;
    }
  });
  server.service.on('beforeResponse', (response: { body: Record<string, unknown>; statusCode: number }, req: { body?: Record<string, unknown>; headers: Record<string, string | undefined> }) => {
    state.tokenRequests.push({ ...req.body });
    if (!secretMatches(req, client)) Object.assign(response, { statusCode: 401, body: { error: 'invalid_client' } });
  });
  server.service.on('beforeAuthorizeRedirect', ({ url }: { url: URL }) => {
    if (!state.denyNext) return;
    state.denyNext = false;
    url.searchParams.delete('code');
    url.searchParams.set('error', 'access_denied');
  });
  return Object.assign(state, {
    issuer: server.issuer.url,
    server,
    stop: () => server.stop(),
  });
}

function secretMatches(req: { body?: Record<string, unknown>; headers: Record<string, string | undefined> }, client: { clientId: string; clientSecret: string }): boolean {
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
  const [id, secret] = basic
    ? Buffer.from(basic[1], 'base64')
        .toString('utf8')
        .split(':')
        .map((part) => decodeURIComponent(part))
    : [req.body?.client_id, req.body?.client_secret];
  return id === client.clientId && secret === client.clientSecret;
}
