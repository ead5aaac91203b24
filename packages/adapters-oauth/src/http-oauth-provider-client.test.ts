import { randomBytes } from 'node:crypto';
import { OAuthProviderError, pkceChallenge, type OAuthClientConfig } from '@svc/core';
import { HttpOAuthProviderClient } from './http-oauth-provider-client';
import { followRedirect, startDiscordShapedProvider, startGitHubShapedProvider, startOpenIdProvider } from './testing';

// The adapter against real authorization servers on loopback; every browser hop is followed by
// hand. apps/api/test/oauth-*.test.ts runs the same servers through the whole HTTP flow.

const CLIENT = { clientId: 'svc-client', clientSecret: 'svc-secret' };
const CALLBACK = 'http://svc.test/api/auth/oauth/p/callback';
const client = new HttpOAuthProviderClient({ timeoutMs: 5000 });
const secret = () => randomBytes(32).toString('base64url');

function configOf(provider: OAuthClientConfig['provider'], overrides: Partial<OAuthClientConfig>): OAuthClientConfig {
  const scopes = provider === 'github' ? ['read:user', 'user:email'] : provider === 'discord' ? ['identify', 'email'] : ['openid', 'email'];
  return { provider, ...CLIENT, scopes, issuer: null, authorizationUrl: null, tokenUrl: null, userInfoUrl: null, ...overrides };
}

/** Authorize in the "browser", come back, redeem; `tamper` changes what the callback presents. */
async function signIn(config: OAuthClientConfig, tamper: { codeVerifier?: string; nonce?: string; config?: Partial<OAuthClientConfig> } = {}) {
  const codeVerifier = secret();
  const nonce = secret();
  const authorizationUrl = await client.authorizationUrl({ config, redirectUri: CALLBACK, state: 'state-1', codeChallenge: pkceChallenge(codeVerifier), nonce });
  const back = await followRedirect(authorizationUrl);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
  const request = {
    config: { ...config, ...tamper.config },
    redirectUri: CALLBACK,
    code: back.searchParams.get('code') ?? '',
    state: back.searchParams.get('state') ?? '',
    codeVerifier: tamper.codeVerifier ?? codeVerifier,
    nonce: tamper.nonce ?? nonce,
  };
  return { authorizationUrl: new URL(authorizationUrl), profile: () => client.exchange(request) };
}

describe('HttpOAuthProviderClient: OpenID provider (oauth2-mock-server)', () => {
  let idp: Awaited<ReturnType<typeof startOpenIdProvider>>;
  beforeAll(async () => {
    idp = await startOpenIdProvider(CLIENT, { sub: 'oidc-1', email: 'ada@example.test', email_verified: true });
  });
  afterAll(() => idp.stop());
  const oidc = () => configOf('oidc', { issuer: idp.issuer });

  it('discovers the issuer, sends PKCE S256 and a nonce, and validates the ID token', async () => {
    const { authorizationUrl, profile } = await signIn(oidc());
    expect(Object.fromEntries(authorizationUrl.searchParams)).toMatchObject({
      client_id: 'svc-client',
      response_type: 'code',
      scope: 'openid email',
      code_challenge_method: 'S256',
      state: 'state-1',
      redirect_uri: CALLBACK,
    });
    expect(authorizationUrl.searchParams.get('nonce')).toBeTruthy();
    await expect(profile()).resolves.toEqual({ issuer: idp.issuer, subject: 'oidc-1', email: 'ada@example.test', emailVerified: true });
    expect(idp.tokenRequests.at(-1)).toMatchObject({ grant_type: 'authorization_code', code_verifier: expect.any(String) });
  });

  it('works for the google slot pointed at another issuer, and reads "true" as verified', async () => {
    idp.account = { sub: 'g-1', email: 'bob@example.test', email_verified: 'true' };
    await expect((await signIn(configOf('google', { issuer: idp.issuer }))).profile()).resolves.toMatchObject({ subject: 'g-1', emailVerified: true });
    idp.account = { sub: 'g-2', email: 'eve@example.test' };
    await expect((await signIn(configOf('google', { issuer: idp.issuer }))).profile()).resolves.toMatchObject({ emailVerified: false });
  });

  it.each([
    ['a wrong PKCE verifier', { codeVerifier: secret() }],
    ['a wrong nonce', { nonce: secret() }],
    ['a wrong client secret', { config: { clientSecret: 'guess' } }],
  ])('refuses %s', async (_label, tamper) => {
    await expect((await signIn(oidc(), tamper)).profile()).rejects.toBeInstanceOf(OAuthProviderError);
  });

  it('refuses an ID token for another audience or from another issuer', async () => {
    for (const tamper of [(c: Record<string, unknown>) => (c.aud = 'someone-else'), (c: Record<string, unknown>) => (c.iss = 'https://evil.test')]) {
      const attempt = await signIn(oidc());
      idp.tamperNext = tamper;
      await expect(attempt.profile()).rejects.toBeInstanceOf(OAuthProviderError);
    }
  });
});

describe('HttpOAuthProviderClient: GitHub and Discord shapes', () => {
  const verified = { email: 'ada@example.test', primary: true, verified: true, visibility: 'private' as const };
  let github: Awaited<ReturnType<typeof startGitHubShapedProvider>>;
  let discord: Awaited<ReturnType<typeof startDiscordShapedProvider>>;
  beforeAll(async () => {
    github = await startGitHubShapedProvider(CLIENT, { id: 101, login: 'ada', publicEmail: 'public@example.test', emails: [verified] });
    discord = await startDiscordShapedProvider(CLIENT, { id: '8000001', username: 'ada', email: 'ada@example.test', verified: true });
  });
  afterAll(async () => {
    await github.stop();
    await discord.stop();
  });

  it('GitHub: the numeric id and the primary verified address from /user/emails', async () => {
    await expect((await signIn(configOf('github', github.endpoints()))).profile()).resolves.toEqual({
      issuer: 'https://github.com',
      subject: '101',
      email: 'ada@example.test',
      emailVerified: true,
    });
    expect(github.tokenRequests.at(-1)).toMatchObject({ code_verifier: expect.any(String), client_secret: 'svc-secret' });
  });

  it('GitHub: no verified primary address means no address, never the public one', async () => {
    github.account = {
      ...github.account,
      emails: [
        { ...verified, verified: false },
        { ...verified, email: 'other@example.test', primary: false },
      ],
    };
    await expect((await signIn(configOf('github', github.endpoints()))).profile()).resolves.toMatchObject({ email: null, emailVerified: false });
  });

  it('GitHub: a refused code (200 with an error body) and a wrong verifier fail', async () => {
    await expect((await signIn(configOf('github', github.endpoints()), { codeVerifier: secret() })).profile()).rejects.toBeInstanceOf(OAuthProviderError);
    const attempt = await signIn(configOf('github', github.endpoints()));
    await attempt.profile();
    await expect(attempt.profile()).rejects.toBeInstanceOf(OAuthProviderError);
  });

  it('Discord: the snowflake id and the verified flag', async () => {
    await expect((await signIn(configOf('discord', discord.endpoints()))).profile()).resolves.toEqual({
      issuer: 'https://discord.com',
      subject: '8000001',
      email: 'ada@example.test',
      emailVerified: true,
    });
    discord.account = { ...discord.account, verified: false };
    await expect((await signIn(configOf('discord', discord.endpoints()))).profile()).resolves.toMatchObject({ emailVerified: false });
  });

  it('refuses plain http towards anything but loopback', async () => {
    const config = configOf('discord', { ...discord.endpoints(), tokenUrl: 'http://idp.example.test/token' });
    await expect(client.authorizationUrl({ config, redirectUri: CALLBACK, state: 's', codeChallenge: 'c', nonce: 'n' })).rejects.toBeInstanceOf(OAuthProviderError);
  });
});

describe('HttpOAuthProviderClient: provider defaults (no network)', () => {
  it.each([
    ['google', 'https://accounts.google.com/o/oauth2/v2/auth', true],
    ['github', 'https://github.com/login/oauth/authorize', false],
    ['discord', 'https://discord.com/oauth2/authorize', false],
  ] as const)('%s authorizes at its published endpoint', async (provider, endpoint, nonce) => {
    const url = new URL(await client.authorizationUrl({ config: configOf(provider, {}), redirectUri: CALLBACK, state: 's', codeChallenge: 'c', nonce: 'n' }));
    expect(`${url.origin}${url.pathname}`).toBe(endpoint);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.has('nonce')).toBe(nonce);
  });
});
