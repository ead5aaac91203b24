import { API_KEY_PREFIXES, environmentOfApiKey } from '../src/domain/api-key';
import { environmentPrefix, splitEnvironmentPrefix } from '../src/domain/environment';
import { isUuid } from '../src/domain/ids';
import { passwordLengthProblem } from '../src/domain/password-policy';
import { hasOidcProvider, poweredByService } from '../src/domain/project';
import { projectSettingsProblem } from '../src/domain/project-settings';
import { appUrlMessage, isAppUrl, isOrigin, MAX_APP_URL_LENGTH, matchRedirectUrl } from '../src/domain/redirect-url';
import { oauthCallbackUrl, oidcIssuerUrl, OAUTH_CALLBACK_ROUTE, OIDC_ISSUER_ROUTE } from '../src/domain/service-paths';
import { newUser, userMetaProblem } from '../src/domain/user';
import { PASSWORD, serviceWithProject } from './helpers';

// Each validity rule has one home in core's domain; the HTTP edge only checks shapes and calls
// these. Hosts of core without the HTTP edge get every rule from the use cases.

describe('ids', () => {
  it('are canonical lower-case UUIDs; any other spelling names nothing', () => {
    expect(isUuid('0b7c6a52-3f0e-4b8e-9a4e-2d7f5c1e9a10')).toBe(true);
    for (const bad of ['0B7C6A52-3F0E-4B8E-9A4E-2D7F5C1E9A10', '{0b7c6a52-3f0e-4b8e-9a4e-2d7f5c1e9a10}', '0b7c6a523f0e4b8e9a4e2d7f5c1e9a10', '', 'nope', 42, null]) {
      expect(isUuid(bad)).toBe(false);
    }
  });
});

describe('app URLs (where the service sends browsers)', () => {
  it('https anywhere, http on loopback only; no credentials, fragment (even empty), backslash, or excess length', () => {
    for (const good of ['https://app.example.test/cb?x=1', 'http://localhost:3000/cb', 'http://127.0.0.1/cb', 'http://[::1]:8080/']) expect(isAppUrl(good)).toBe(true);
    const long = `https://app.example.test/${'a'.repeat(MAX_APP_URL_LENGTH)}`;
    for (const bad of [
      'http://app.example.test/cb',
      'https://u:p@app.example.test/',
      'https://app.example.test/cb#x',
      'https://app.example.test/cb#',
      'https://app.example.test\\@evil.test/',
      'javascript:alert(1)',
      long,
      7,
    ]) {
      expect(isAppUrl(bad)).toBe(false);
    }
    expect(appUrlMessage('magicLinkUrl')).toBe('magicLinkUrl must be an https URL (http only for localhost) without credentials or fragment.');
    expect(appUrlMessage('redirectUrls', { each: true })).toBe('each entry of redirectUrls must be an https URL (http only for localhost) without credentials or fragment.');
  });

  it('allow-lists compare parsed URLs exactly', () => {
    expect(matchRedirectUrl(['https://app.example.test/cb'], 'https://APP.example.test/cb')).toBe('https://app.example.test/cb');
    expect(matchRedirectUrl(['https://app.example.test/cb'], 'https://app.example.test/cb/')).toBeNull();
    expect(matchRedirectUrl(['http://evil.example/cb'], 'http://evil.example/cb')).toBeNull();
  });

  it('origins are exactly what browsers send', () => {
    expect(isOrigin('https://app.example.test')).toBe(true);
    expect(isOrigin('http://localhost:3000')).toBe(true);
    for (const bad of ['https://app.example.test/', 'https://app.example.test/path', 'ftp://app.example.test', 'app.example.test']) expect(isOrigin(bad)).toBe(false);
  });
});

describe('project settings, checked by core on create and update', () => {
  it.each([
    [{}, 'name is required.'],
    [{ name: '  ' }, 'name must not be empty.'],
    [{ name: 'x\ny' }, 'name must not contain line breaks.'],
    [{ name: 'x', plan: 'GOLD' }, 'plan must be one of FREE, SOLO, PRO.'],
    [{ name: 'x', allowedOrigins: ['https://a.example/path'] }, 'each entry of allowedOrigins must be an origin such as https://app.example.com (scheme, host, optional port; no path).'],
    [{ name: 'x', redirectUrls: Array.from({ length: 101 }, () => 'https://a.example/') }, 'redirectUrls may hold at most 100 entries.'],
    [{ name: 'x', oidcLoginUrl: 'http://a.example/login' }, 'oidcLoginUrl must be an https URL (http only for localhost) without credentials or fragment.'],
    [{ name: 'x', defaultMeta: { a: { b: { c: { d: { e: {} } } } } } }, 'defaultMeta is nested deeper than 5 levels (at defaultMeta.a.b.c.d.e).'],
    [{ name: 'x', webauthn: { rpId: 'example.com', rpName: 'Ex', origins: ['https://evil.test'] } }, 'each webauthn.origins entry must be on webauthn.rpId or one of its subdomains.'],
    [{ name: 'x', webauthn: { rpId: 'example.com' } }, 'webauthn.rpName must be a string of 1 to 200 characters.'],
    [{ name: 'x', emailTemplates: { magicLink: { text: 'no link' } } }, 'emailTemplates.magicLink.text must contain {{link}}.'],
    [{ name: 'x', emailTemplates: { welcome: {} } }, 'emailTemplates.welcome is not a template (templates: magicLink, passwordReset, emailVerification, emailChange).'],
    [{ name: 'x', userLimit: -1 }, 'userLimit must not be negative.'],
    [{ name: 'x', accessTokenTtlSeconds: 86_401 }, 'accessTokenTtlSeconds must be from 60 to 86400.'],
    [{ name: 'x', refreshReuseGraceSeconds: 1.5 }, 'refreshReuseGraceSeconds must be an integer.'],
    [{ name: 'x', absoluteSessionLifetimeSeconds: null }, 'absoluteSessionLifetimeSeconds must be an integer.'],
    [{ name: 'x', rejectCommonPasswords: 'yes' }, 'rejectCommonPasswords must be true or false.'],
  ])('createProject(%j) is refused: %s', async (settings, message) => {
    const { service } = await serviceWithProject();
    await expect(service.admin.createProject(settings as never)).rejects.toMatchObject({ code: 'validation_error', message });
    expect(projectSettingsProblem(settings as never, { creating: true })).toBe(message);
  });

  it('an update checks only what it sets; null clears what may be cleared', async () => {
    const { service, created } = await serviceWithProject();
    const id = created.project.id;
    expect(projectSettingsProblem({}, { creating: false })).toBeNull();
    await expect(service.admin.updateProject(id, { redirectUrls: ['http://evil.example/cb'] })).rejects.toMatchObject({ code: 'validation_error' });
    await expect(service.admin.updateProject(id, { name: null as never })).rejects.toMatchObject({ message: 'name must be a string.' });
    const cleared = await service.admin.updateProject(id, { magicLinkUrl: null, webauthn: null, emailTemplates: null, userLimit: null });
    expect(cleared).toMatchObject({ magicLinkUrl: null, webauthn: null, emailTemplates: null, userLimit: null });
  });
});

describe('accounts', () => {
  it('a new password is 8 to 1024 characters as people count them, in core as at the edge', async () => {
    expect(passwordLengthProblem('seven77', 'password')).toBe('password must be at least 8 characters long.');
    expect(passwordLengthProblem('\u{1F600}'.repeat(7), 'newPassword')).toBe('newPassword must be at least 8 characters long.');
    expect(passwordLengthProblem('\u{1F600}\ufe0f'.repeat(8), 'password')).toBeNull();
    expect(passwordLengthProblem('a'.repeat(1025), 'password')).toBe('password must be at most 1024 characters.');
    const { service, production: key } = await serviceWithProject();
    await expect(service.signUp(key, { email: 'ada@example.test', password: 'short' })).rejects.toMatchObject({
      code: 'validation_error',
      message: 'password must be at least 8 characters long.',
    });
  });

  it('meta is a shallow JSON object without prototype keys, in core as at the edge', async () => {
    expect(userMetaProblem([], 'meta')).toBe('meta must be a JSON object.');
    expect(userMetaProblem(JSON.parse('{"__proto__":{"admin":true}}'), 'meta')).toBe('meta.__proto__ is not an allowed key.');
    const { service, production: key } = await serviceWithProject();
    await expect(service.signUp(key, { email: 'ada@example.test', password: PASSWORD, meta: { a: { b: { c: { d: { e: {} } } } } } })).rejects.toMatchObject({
      code: 'validation_error',
      message: 'meta is nested deeper than 5 levels (at meta.a.b.c.d.e).',
    });
  });

  it('every new user starts the same way, whichever path made it', () => {
    const createdAt = new Date('2026-01-01T00:00:00.000Z');
    const user = newUser({ id: 'u', email: ' Ada@Example.TEST ', passwordHash: null, emailVerified: true, defaultMeta: { plan: 'a', tier: 1 }, meta: { plan: 'b' }, createdAt });
    expect(user).toEqual({ id: 'u', email: 'ada@example.test', passwordHash: null, role: 'user', meta: { plan: 'b', tier: 1 }, emailVerified: true, bannedAt: null, createdAt, lastLoginAt: null });
  });
});

describe('names the service gives out', () => {
  it('key and token prefixes name their environment one way', () => {
    expect(API_KEY_PREFIXES).toEqual({ production: 'svc_live_', sandbox: 'svc_sbx_' });
    expect(environmentPrefix('ml', 'sandbox')).toBe('ml_sbx_');
    expect(splitEnvironmentPrefix('os', 'os_live_rest')).toEqual({ environment: 'production', rest: 'rest' });
    expect(splitEnvironmentPrefix('os', 'os_test_rest')).toBeNull();
    expect(environmentOfApiKey('svc_sbx_abc')).toBe('sandbox');
    expect(environmentOfApiKey('svc_prod_abc')).toBeNull();
  });

  it('the OAuth callback and the OIDC issuers hang off the base URL, at the paths the edge mounts', () => {
    expect(oauthCallbackUrl('https://auth.example.test/', 'github')).toBe('https://auth.example.test/api/auth/oauth/github/callback');
    expect(oidcIssuerUrl('https://auth.example.test/base//', 'p1')).toBe('https://auth.example.test/base/api/oidc/p1');
    expect([OAUTH_CALLBACK_ROUTE, OIDC_ISSUER_ROUTE]).toEqual(['/api/auth/oauth/:provider/callback', '/api/oidc/:projectId']);
  });

  it('plans: only Pro hosts an OIDC provider, only Free shows "powered by"', () => {
    expect(['FREE', 'SOLO', 'PRO'].map((plan) => hasOidcProvider(plan as never))).toEqual([false, false, true]);
    expect(['FREE', 'SOLO', 'PRO'].map((plan) => poweredByService(plan as never))).toEqual([true, false, false]);
  });
});
