import type { Configuration, TokenEndpointResponse, TokenEndpointResponseHelpers } from 'openid-client';
import { Browser, type Hop } from './browser';
import { api, type JsonAnswer, type OidcInstance } from './harness';

export type OpenIdClient = typeof import('openid-client');
let loading: Promise<OpenIdClient> | undefined;

/** openid-client 6 is ESM-only: loaded with import() (jest runs with --experimental-vm-modules). */
export function openid(): Promise<OpenIdClient> {
  loading ??= import('openid-client');
  return loading;
}

/** The customer's login page: tests never load it, they read the request token off the redirect. */
const LOGIN_URL = 'https://login.example.test/signin?brand=acme';
export const CALLBACK = 'https://rp.example.test/callback';

export interface Tenant {
  projectId: string;
  live: string;
  sandbox: string;
  issuer: string;
}

export async function createTenant(instance: OidcInstance, settings: Record<string, unknown> = {}): Promise<Tenant> {
  const res = await api(instance.base).admin('POST', '/projects', { name: 'Acme', plan: 'PRO', oidcLoginUrl: LOGIN_URL, ...settings });
  if (res.status !== 201) throw new Error(`project: ${res.status} ${JSON.stringify(res.body)}`);
  const { project, apiKeys } = res.body.data;
  return { projectId: project.id, live: apiKeys.production, sandbox: apiKeys.sandbox, issuer: `${instance.base}/api/oidc/${project.id}` };
}

export interface RegisteredClient {
  clientId: string;
  clientSecret?: string;
}

export async function registerClient(instance: OidcInstance, tenant: Tenant, body: Record<string, unknown> = {}): Promise<RegisteredClient> {
  const res = await api(instance.base).admin('POST', `/projects/${tenant.projectId}/oidc-clients`, {
    environment: 'production',
    name: 'Acme Notes',
    redirectUris: [CALLBACK],
    ...body,
  });
  if (res.status !== 201) throw new Error(`client: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export async function createUser(instance: OidcInstance, key: string, email: string, meta?: Record<string, unknown>): Promise<string> {
  const res = await api(instance.base).keyed(key, 'POST', '/api/auth/signup', { email, password: 'correct horse battery', meta });
  if (res.status !== 201) throw new Error(`signup: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.user.id;
}

/** The relying party: discovery over http on loopback, secret (post) or none (public). */
export async function relyingParty(issuer: string, client: RegisteredClient, fetchImpl?: typeof fetch): Promise<Configuration> {
  const oc = await openid();
  const auth = client.clientSecret ? oc.ClientSecretBasic(client.clientSecret) : oc.None();
  return oc.discovery(new URL(issuer), client.clientId, undefined, auth, {
    execute: [oc.allowInsecureRequests],
    ...(fetchImpl ? { [oc.customFetch]: fetchImpl } : {}),
  });
}

/** One authorization request as a browser makes it, up to the redirect to the login page. */
export interface Started {
  browser: Browser;
  hop: Hop;
  verifier: string;
  nonce: string;
  state: string;
  requestToken: string | null;
  loginPage: URL | null;
}

export async function authorize(instance: OidcInstance, config: Configuration, params: Record<string, string> = {}): Promise<Started> {
  const oc = await openid();
  const verifier = oc.randomPKCECodeVerifier();
  const nonce = oc.randomNonce();
  const state = oc.randomState();
  const url = oc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid email profile',
    code_challenge: await oc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
    ...params,
  });
  // An empty value means "leave the parameter out" (e.g. no PKCE, no nonce).
  for (const [name, value] of [...url.searchParams]) if (value === '') url.searchParams.delete(name);
  const browser = new Browser(instance.base);
  const hop = await browser.get(url);
  const location = hop.location ? new URL(hop.location) : null;
  const atLogin = location !== null && location.origin === new URL(LOGIN_URL).origin;
  return { browser, hop, verifier, nonce, state, loginPage: atLogin ? location : null, requestToken: atLogin ? location.searchParams.get('request_token') : null };
}

/** `POST /api/auth/oidc/grant`, as the customer's backend calls it. */
export function grant(instance: OidcInstance, key: string, body: Record<string, unknown>): Promise<JsonAnswer> {
  return api(instance.base).keyed(key, 'POST', '/api/auth/oidc/grant', body);
}

export type Tokens = TokenEndpointResponse & TokenEndpointResponseHelpers;

/** Approves as `userId`, follows the resume URL and exchanges the code: the whole happy path. */
export async function signIn(
  instance: OidcInstance,
  config: Configuration,
  key: string,
  userId: string,
  options: { params?: Record<string, string>; scopes?: string[] } = {},
): Promise<{ tokens: Tokens; callback: URL; started: Started }> {
  const oc = await openid();
  const started = await authorize(instance, config, options.params);
  if (!started.requestToken) throw new Error(`no login redirect: ${started.hop.status} ${started.hop.location} ${started.hop.text} ${instance.logs.slice(-2).join(' ')}`);
  const approved = await grant(instance, key, { requestToken: started.requestToken, approved: true, userId, scopes: options.scopes });
  if (approved.status !== 200) throw new Error(`grant: ${approved.status} ${JSON.stringify(approved.body)}`);
  const resumed = await started.browser.get(approved.body.data.redirectUrl);
  if (!resumed.location?.startsWith(CALLBACK)) throw new Error(`resume: ${resumed.status} ${resumed.location} ${resumed.text}`);
  const callback = new URL(resumed.location);
  const tokens = await oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.verifier, expectedNonce: started.nonce, expectedState: started.state, idTokenExpected: true });
  return { tokens, callback, started };
}

/** The `kid` in a JWT's protected header. */
export function kidOf(jwt: string): string {
  return JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString('utf8')).kid;
}

/**
 * The OAuth error code a rejected openid-client call carries: from the JSON body
 * (ResponseBodyError) or from the WWW-Authenticate challenge (a 401 invalid_client / invalid_token).
 */
export async function oauthError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    const { error: code, cause } = error as { error?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    const challenge = Array.isArray(cause) ? (cause[0] as { parameters?: { error?: string } }) : undefined;
    if (challenge?.parameters?.error) return challenge.parameters.error;
    throw error;
  }
  return 'resolved';
}
