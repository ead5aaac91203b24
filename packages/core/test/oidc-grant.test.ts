import { isAuthError } from '../src/errors';
import { createOidcService } from '../src/oidc-service';
import { startOidcLogin } from '../src/use-cases/oidc/oidc-login';
import { InMemoryOidcArtifactStore } from '../src/testing/in-memory-oidc-artifact-store';
import { InMemoryOidcClientStore } from '../src/testing/in-memory-oidc-client-store';
import { RecordingOidcInteractions } from '../src/testing/recording-oidc-interactions';
import { seedUser } from '../src/testing/storage-fixture';
import type { ProjectSettings } from '../src/domain/project';
import { serviceWithProject } from './helpers';

const LOGIN_URL = 'https://app.example.test/login?theme=dark';

/** A Pro project with one production client and one authorization waiting at the login page. */
async function setUp(settings: ProjectSettings = { plan: 'PRO' }) {
  const base = await serviceWithProject(settings);
  const interactions = new RecordingOidcInteractions();
  const deps = { ...base.deps, oidcClients: new InMemoryOidcClientStore(), oidcArtifacts: new InMemoryOidcArtifactStore(), oidcInteractions: interactions };
  const oidc = createOidcService(deps);
  const { client, clientSecret } = await oidc.admin.registerClient(base.created.project.id, {
    environment: 'production',
    name: 'Acme Notes',
    redirectUris: ['https://rp.example.test/cb'],
  });
  const user = await seedUser(deps, base.production.scope);
  interactions.add(base.production.scope.projectId, { uid: 'uid-1', clientId: client.clientId, requestedScopes: ['openid', 'email', 'profile'] });
  const loginPage = new URL(await startOidcLogin(deps, { loginUrl: LOGIN_URL, client, uid: 'uid-1', scopes: ['openid', 'email', 'profile'] }));
  const requestToken = loginPage.searchParams.get('request_token')!;
  return { ...base, deps, oidc, client, clientSecret, user, interactions, loginPage, requestToken };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isAuthError(error)) return error.code;
    throw error;
  }
  return 'resolved';
}

describe('OIDC login hand-off and POST /api/auth/oidc/grant', () => {
  it('sends the login page a request token, the app name and the scopes, keeping its own query', async () => {
    const { loginPage, clientSecret } = await setUp();
    expect(loginPage.origin + loginPage.pathname).toBe('https://app.example.test/login');
    expect(loginPage.searchParams.get('theme')).toBe('dark');
    expect(loginPage.searchParams.get('app_name')).toBe('Acme Notes');
    expect(loginPage.searchParams.get('scope')).toBe('openid email profile');
    expect(loginPage.searchParams.get('request_token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('approves with narrowed scopes once; the token is then used up', async () => {
    const { oidc, production, requestToken, user, interactions } = await setUp();
    const input = { requestToken, approved: true, userId: user.id, scopes: ['openid', 'email'] };
    const { redirectUrl } = await oidc.grant(production, input);
    expect(redirectUrl).toContain('/authorize/uid-1');
    expect(interactions.finished).toEqual([{ projectId: production.scope.projectId, uid: 'uid-1', outcome: 'approved', userId: user.id, scopes: ['openid', 'email'] }]);
    expect(await codeOf(oidc.grant(production, input))).toBe('invalid_token');
  });

  it('denies without a user', async () => {
    const { oidc, production, requestToken, interactions } = await setUp();
    await oidc.grant(production, { requestToken, approved: false });
    expect(interactions.finished.map((f) => f.outcome)).toEqual(['denied']);
  });

  it('refuses bad input without using the token up', async () => {
    const { oidc, production, requestToken, user, deps } = await setUp();
    expect(await codeOf(oidc.grant(production, { requestToken, approved: true }))).toBe('validation_error');
    expect(await codeOf(oidc.grant(production, { requestToken, approved: true, userId: user.id, scopes: ['email'] }))).toBe('validation_error');
    expect(await codeOf(oidc.grant(production, { requestToken, approved: true, userId: user.id, scopes: ['openid', 'phone'] }))).toBe('validation_error');
    expect(await codeOf(oidc.grant(production, { requestToken, approved: true, userId: crypto.randomUUID() }))).toBe('user_not_found');
    await deps.users.setBanned(production.scope, user.id, deps.clock.now());
    expect(await codeOf(oidc.grant(production, { requestToken, approved: true, userId: user.id }))).toBe('user_banned');
    await deps.users.setBanned(production.scope, user.id, null);
    await oidc.grant(production, { requestToken, approved: true, userId: user.id });
  });

  it('refuses forged, expired and other-environment tokens with invalid_token', async () => {
    const { oidc, production, sandbox, requestToken, user, deps } = await setUp();
    expect(await codeOf(oidc.grant(production, { requestToken: 'forged', approved: false }))).toBe('invalid_token');
    expect(await codeOf(oidc.grant(sandbox, { requestToken, approved: true, userId: user.id }))).toBe('invalid_token');
    deps.clock.advance(10 * 60);
    expect(await codeOf(oidc.grant(production, { requestToken, approved: false }))).toBe('invalid_token');
  });

  it('answers plan_upgrade_required on a project below Pro', async () => {
    const { oidc, production, requestToken } = await setUp({ plan: 'SOLO' });
    expect(await codeOf(oidc.grant(production, { requestToken, approved: false }))).toBe('plan_upgrade_required');
  });

  it('refuses a user of the other environment', async () => {
    const { oidc, production, sandbox, requestToken, deps } = await setUp();
    const sandboxUser = await seedUser(deps, sandbox.scope);
    expect(await codeOf(oidc.grant(production, { requestToken, approved: true, userId: sandboxUser.id }))).toBe('user_not_found');
  });

  it('validates client registrations', async () => {
    const { oidc, created } = await setUp();
    const register = (redirectUris: string[]) => oidc.admin.registerClient(created.project.id, { environment: 'sandbox', name: 'x', redirectUris, public: true });
    for (const bad of [[], ['http://app.example.test/cb'], ['https://app.example.test/cb#f'], ['https://u:p@app.example.test/'], ['not a url']]) {
      expect(await codeOf(register(bad))).toBe('validation_error');
    }
    const { client, clientSecret } = await register(['http://127.0.0.1:8080/cb']);
    expect(clientSecret).toBeNull();
    expect(client.secretHash).toBeNull();
    expect((await oidc.admin.listClients(created.project.id, 'sandbox')).map((c) => c.clientId)).toEqual([client.clientId]);
    await oidc.admin.deleteClient(created.project.id, client.clientId);
    expect(await codeOf(oidc.admin.deleteClient(created.project.id, client.clientId))).toBe('not_found');
  });
});
