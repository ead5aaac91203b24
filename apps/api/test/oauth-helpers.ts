import { HttpOAuthProviderClient } from '@svc/adapters-oauth';
import { followRedirect, startDiscordShapedProvider, startGitHubShapedProvider, startOpenIdProvider, type DiscordAccount, type GitHubAccount, type OpenIdClaims } from '@svc/adapters-oauth/testing';
import type { Express } from 'express';
import request from 'supertest';
import { ADMIN_TOKEN, buildTestApp, createProject } from './helpers';

// Social sign-in end to end: the API (in-process, over supertest) with the real protocol client
// (openid-client) against real identity providers on loopback. The "browser" is these helpers:
// every redirect is followed by hand, so each hop can be inspected or tampered with.

export const APP_URL = 'https://app.example.test/cb';
const LOCAL_APP_URL = 'http://localhost:3000/auth/done';
export const CLIENT = { clientId: 'svc-client', clientSecret: 'svc-client-secret' };

export const ADA_GITHUB: GitHubAccount = {
  id: 4242,
  login: 'ada',
  publicEmail: null,
  emails: [{ email: 'ada@example.com', primary: true, verified: true, visibility: 'private' }],
};
const ADA_DISCORD: DiscordAccount = { id: '80351110224678912', username: 'ada', email: 'ada@example.com', verified: true };
export const ADA_OIDC: OpenIdClaims = { sub: 'oidc-ada', email: 'ada@example.com', email_verified: true };

export type Providers = Awaited<ReturnType<typeof startProviders>>;

/** One OpenID provider (serving both the `google` and `oidc` slots), one GitHub, one Discord. */
export async function startProviders() {
  const [openid, github, discord] = await Promise.all([
    startOpenIdProvider(CLIENT, { ...ADA_OIDC }),
    startGitHubShapedProvider(CLIENT, structuredClone(ADA_GITHUB)),
    startDiscordShapedProvider(CLIENT, { ...ADA_DISCORD }),
  ]);
  const stop = async () => {
    await Promise.all([openid.stop(), github.stop(), discord.stop()]);
  };
  return { openid, github, discord, stop };
}

/** The admin PUT body of each provider, pointed at the loopback servers. */
export function providerSettings(providers: Providers): Record<string, Record<string, unknown>> {
  return {
    google: { ...CLIENT, enabled: true, issuer: providers.openid.issuer },
    oidc: { ...CLIENT, enabled: true, issuer: providers.openid.issuer, scopes: ['openid', 'email', 'profile'] },
    github: { ...CLIENT, enabled: true, ...providers.github.endpoints() },
    discord: { ...CLIENT, enabled: true, ...providers.discord.endpoints() },
  };
}

/** An app over in-memory storage with the real OAuth client, and a project with every provider on. */
export async function oauthApp(providers: Providers, projectBody: Record<string, unknown> = {}) {
  const world = buildTestApp({ deps: { oauthClient: new HttpOAuthProviderClient({ timeoutMs: 5000 }) } });
  const project = await createProject(world.app, { name: 'Acme', redirectUrls: [APP_URL, LOCAL_APP_URL], ...projectBody });
  await configureProviders(world.app, project.id, providers, 'production');
  return { ...world, project };
}

export async function configureProviders(app: Express, projectId: string, providers: Providers, environment: string): Promise<void> {
  for (const [slug, body] of Object.entries(providerSettings(providers))) {
    await adminPut(app, `/admin/projects/${projectId}/oauth-providers/${slug}`, { ...body, environment }).expect(200);
  }
}

/** PUT on the admin API (the shared `admin()` helper has no PUT). */
export function adminPut(app: Express, path: string, body: object) {
  return request(app).put(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`).send(body);
}

/** `POST /api/auth/oauth/{provider}` then the provider's authorize hop: the callback URL the browser is sent to. */
export async function toCallback(app: Express, key: string, provider: string, body: Record<string, unknown> = {}): Promise<URL> {
  const initiated = await request(app).post(`/api/auth/oauth/${provider}`).set('X-API-Key', key).send(body).expect(200);
  expect(initiated.body).toEqual({ data: { provider, authorizationUrl: expect.any(String) } });
  const callback = await followRedirect(initiated.body.data.authorizationUrl);
  expect(`${callback.origin}${callback.pathname}`).toBe(`http://svc.test/api/auth/oauth/${provider}/callback`);
  return callback;
}

/** The browser loads our callback; answers the response and, for a redirect, where it goes. */
export async function visitCallback(app: Express, callback: URL): Promise<{ response: request.Response; landing: URL | null }> {
  const response = await request(app).get(`${callback.pathname}${callback.search}`);
  const landing = response.status === 302 ? new URL(response.headers.location) : null;
  return { response, landing };
}

/** The whole browser round trip: the caller's page URL at the end (asserted to be a 302). */
export async function browserSignIn(app: Express, key: string, provider: string, body: Record<string, unknown> = {}): Promise<URL> {
  const { response, landing } = await visitCallback(app, await toCallback(app, key, provider, body));
  expect(response.status).toBe(302);
  return landing!;
}

/** `POST /api/auth/oauth/token` from the caller's server. */
export function exchange(app: Express, key: string, code: string | null) {
  return request(app).post('/api/auth/oauth/token').set('X-API-Key', key).send({ code });
}
