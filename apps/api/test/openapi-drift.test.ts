import request from 'supertest';
import { OIDC_ROUTES } from '@svc/adapters-oidc-provider';
import { ERROR_CODES } from '@svc/core';
import { createSessionProxy } from '@svc/proxy';
import { HTTP_STATUS } from '../src/http/http-errors';
import { loadOpenApiDocument } from '../src/http/openapi';
import { documentedOperations, errorCodesByStatus, responseValidator } from './support/openapi-check';
import { REAL_ADMIN_TOKEN, startRealApp, type RealApp } from './support/real-app';
import { mountedRoutes } from './support/route-walk';

// apps/api/openapi/openapi.yaml against what is really mounted and
// against the contract's error table. Real responses are checked in openapi-responses.test.ts.

const doc = loadOpenApiDocument();
const key = (op: { method: string; path: string }) => `${op.method} ${op.path}`;

/** Path-mounted handlers that are not routes, each with the reason it needs no document entry. */
const MIDDLEWARE_MOUNTS = {
  '/api/auth': 'Cache-Control: no-store on token responses',
  '/api/oidc/{projectId}': "the project's OIDC issuer; its paths are documented and checked against discovery below",
  '/console': "the admin console's built files (index.html, console.js, console.css), checked in console-browser.test.ts",
};

/** The contract's error table per endpoint ("invalid key" is missing_api_key and invalid_api_key on every endpoint that needs a key). */
const KEY = ['missing_api_key', 'invalid_api_key'];
const CONTRACT_ERRORS: Record<string, Record<string, string[]>> = {
  'POST /api/auth/signup': { 400: ['validation_error'], 401: KEY, 403: ['user_banned', 'plan_limit_reached'], 409: ['user_already_exists'], 429: ['rate_limited'] },
  'POST /api/auth/login': { 400: ['validation_error'], 401: ['invalid_credentials', 'invalid_api_key'], 403: ['user_banned'], 429: ['rate_limited'] },
  'POST /api/auth/logout': { 400: ['validation_error'], 401: KEY },
  'POST /api/auth/refresh': { 400: ['validation_error'], 401: ['invalid_api_key', 'invalid_refresh_token'], 429: ['rate_limited'] },
  'GET /api/auth/me': { 401: ['missing_api_key', 'invalid_api_key', 'invalid_token'], 403: ['user_banned'] },
  'POST /api/auth/magic-link': { 400: ['validation_error'], 401: KEY, 429: ['rate_limited'] },
  'GET /api/auth/magic-link/verify': { 401: ['invalid_magic_link'], 404: ['user_not_found'] },
  'POST /api/auth/password/reset': { 400: ['validation_error'], 401: KEY, 429: ['rate_limited'] },
  'POST /api/auth/password/update': { 400: ['validation_error'], 401: ['invalid_api_key', 'invalid_reset_token'] },
  'POST /api/auth/oauth/{provider}': { 400: ['validation_error'], 401: KEY },
  'GET /api/auth/oauth/{provider}/callback': { 400: [] },
  'POST /api/auth/oauth/token': { 400: ['validation_error'], 401: ['invalid_api_key', 'invalid_token'], 403: ['user_banned'], 404: ['user_not_found'] },
  'POST /api/auth/oidc/grant': { 403: ['plan_upgrade_required'] },
  'GET /api/auth/sdk/branding': { 401: KEY },
};

/** The contract's "Errors" table. */
const CONTRACT_TABLE = [
  'validation_error',
  'missing_api_key',
  'invalid_api_key',
  'invalid_credentials',
  'invalid_refresh_token',
  'invalid_token',
  'invalid_magic_link',
  'invalid_reset_token',
  'user_banned',
  'plan_limit_reached',
  'user_not_found',
  'user_already_exists',
  'rate_limited',
];

/** The proxy's one code of its own: the API could not be reached. */
const PROXY_ONLY_CODES = ['upstream_unavailable'];

describe('the OpenAPI document', () => {
  let real: RealApp;
  beforeAll(async () => {
    real = await startRealApp();
  }, 60_000);
  afterAll(async () => {
    await real?.close();
  });

  it('is OpenAPI 3.1 with version 1.0.0 (contract: Versioning)', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.0.0');
  });

  it('documents every route the API mounts, and mounts every route it documents', () => {
    const mounted = mountedRoutes(real.app);
    expect(mounted.prefixMounts.sort()).toEqual(Object.keys(MIDDLEWARE_MOUNTS).sort());
    const served = mounted.routes.map(key).sort();
    const documented = documentedOperations(doc, 'api')
      .filter((op) => !op.path.startsWith('/api/oidc/{projectId}/'))
      .map(key)
      .sort();
    expect({ undocumented: served.filter((route) => !documented.includes(route)), notMounted: documented.filter((route) => !served.includes(route)) }).toEqual({
      undocumented: [],
      notMounted: [],
    });
  });

  it("documents the OIDC issuer's endpoints as its discovery document names them", async () => {
    const admin = { Authorization: `Bearer ${REAL_ADMIN_TOKEN}` };
    const created = await request(real.app).post('/admin/projects').set(admin).send({ name: 'Issuer', plan: 'PRO', oidcLoginUrl: 'https://login.example.test/' }).expect(201);
    const issuer = `/api/oidc/${created.body.data.project.id}`;
    const discovery = await request(real.app).get(`${issuer}/.well-known/openid-configuration`).expect(200);
    const endpoints = ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri', 'revocation_endpoint', 'end_session_endpoint'];
    const advertised = endpoints.map((name) => new URL(discovery.body[name]).pathname.replace(issuer, '/api/oidc/{projectId}'));
    const documented = [
      ...new Set(
        documentedOperations(doc, 'api')
          .filter((op) => op.path.startsWith('/api/oidc/{projectId}/'))
          .map((op) => op.path),
      ),
    ];
    // Beyond discovery: the discovery document itself and the resume URL that `POST /api/auth/oidc/grant` answers.
    const extra = ['/api/oidc/{projectId}/.well-known/openid-configuration', `/api/oidc/{projectId}${OIDC_ROUTES.authorization}/{uid}`];
    expect(documented.sort()).toEqual([...advertised, ...extra].sort());
  }, 30_000);

  it('documents every route of createSessionProxy, and nothing it lacks', () => {
    const proxy = createSessionProxy({ apiKey: 'svc_sbx_unused', baseUrl: 'http://127.0.0.1:9' });
    const mounted = mountedRoutes(proxy);
    expect(mounted.prefixMounts).toEqual([]);
    expect(mounted.routes.map(key).sort()).toEqual(documentedOperations(doc, 'proxy').map(key).sort());
  });

  it('names only codes of the error catalogue, each under the status http-errors.ts gives it', () => {
    const problems: string[] = [];
    for (const server of ['api', 'proxy'] as const) {
      const allowed = new Set<string>([...ERROR_CODES, ...(server === 'proxy' ? PROXY_ONLY_CODES : [])]);
      for (const op of documentedOperations(doc, server)) {
        for (const [status, codes] of Object.entries(errorCodesByStatus(doc, op.operation))) {
          for (const code of codes) {
            if (!allowed.has(code)) problems.push(`${key(op)} ${status}: unknown code ${code}`);
            const expected = HTTP_STATUS[code as keyof typeof HTTP_STATUS];
            const exempt = PROXY_ONLY_CODES.includes(code);
            if (expected !== undefined && String(expected) !== status && !exempt) problems.push(`${key(op)}: ${code} under ${status}, http-errors.ts says ${expected}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("lists every code of the contract's error table, and each endpoint's codes under the contract's statuses", () => {
    const operations = new Map(documentedOperations(doc, 'api').map((op) => [key(op), op]));
    const everywhere = new Set([...operations.values()].flatMap((op) => Object.values(errorCodesByStatus(doc, op.operation)).flat()));
    expect(CONTRACT_TABLE.filter((code) => !everywhere.has(code))).toEqual([]);
    const missing: string[] = [];
    for (const [endpoint, statuses] of Object.entries(CONTRACT_ERRORS)) {
      const op = operations.get(endpoint);
      if (!op) {
        missing.push(`${endpoint}: not documented`);
        continue;
      }
      const documented = errorCodesByStatus(doc, op.operation);
      for (const [status, codes] of Object.entries(statuses)) {
        if (!documented[status]) missing.push(`${endpoint}: no ${status}`);
        for (const code of codes) if (!documented[status]?.includes(code)) missing.push(`${endpoint}: ${status} lacks ${code}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('fails answers that drift from it (the check openapi-responses.test.ts relies on)', () => {
    const validate = responseValidator(doc);
    const user = { id: 'u', email: 'ada@example.com', role: 'user', meta: {}, createdAt: '2026-01-01T00:00:00.000Z' };
    const answer = (status: number, body: unknown) => validate({ method: 'POST', path: '/api/auth/signup', status, contentType: 'application/json', body });
    expect(answer(201, { data: { user, accessToken: 'a', refreshToken: 'r', expiresIn: 900 } })).toEqual([]);
    expect(answer(201, { data: { user: { ...user, passwordHash: 'x' }, accessToken: 'a', refreshToken: 'r', expiresIn: 900 } })).not.toEqual([]);
    expect(answer(201, { data: { user, accessToken: 'a', refreshToken: 'r', expiresIn: '900' } })).not.toEqual([]);
    expect(answer(409, { error: 'user_banned', message: 'x' })).not.toEqual([]);
    expect(answer(418, { error: 'validation_error', message: 'x' })).not.toEqual([]);
  });

  it('is served at /api/openapi.json without a key, with a reference page whose assets load', async () => {
    const served = await request(real.app)
      .get('/api/openapi.json')
      .expect(200)
      .expect('Content-Type', /application\/json/);
    expect(served.body).toEqual(JSON.parse(JSON.stringify(doc)));
    const page = await request(real.app)
      .get('/api/docs')
      .expect(200)
      .expect('Content-Type', /text\/html/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets).toEqual(['/api/docs/swagger-ui.css', '/api/docs/swagger-ui-bundle.js', '/api/docs/docs.js']);
    for (const asset of assets) await request(real.app).get(asset).expect(200);
    await request(real.app).get('/api/docs/package.json').expect(404);
    await request(real.app).get('/api/docs/..%2Fopenapi.yaml').expect(404);
  });
});
