import { createSvcClient, verifyAccessToken } from '../src';
import { startRealApi, type RealApi, type TestProject } from './real-api';

// Tokens issued by the real API (RS256 with node:crypto), verified with jose as a customer would.
describe('verifyAccessToken', () => {
  let api: RealApi;
  let project: TestProject;
  let other: TestProject;
  let token: string;
  let userId: string;

  beforeAll(async () => {
    api = await startRealApi();
    [project, other] = [await api.createProject(), await api.createProject({ name: 'Another project' })];
    const signup = await createSvcClient({ apiKey: project.live, baseUrl: api.url }).signup({ email: 'ada@example.com', password: 'correct horse battery' });
    [token, userId] = [signup.accessToken, signup.user.id];
  });
  afterAll(() => api.close());

  const production = () => ({ projectId: project.id, environment: 'production' as const });

  it('accepts a token with the PEM public key, and checks the issuer when given', async () => {
    const claims = await verifyAccessToken(token, { publicKeyPem: project.publicKeys.production }, { ...production(), issuer: 'http://svc.test' });
    expect(claims).toMatchObject({ sub: userId, aud: project.id, env: 'production', email: 'ada@example.com', iss: 'http://svc.test' });
    await expect(verifyAccessToken(token, { publicKeyPem: project.publicKeys.production }, { ...production(), issuer: 'https://evil.example' })).rejects.toMatchObject({
      code: 'invalid_token',
      status: 401,
    });
  });

  it('accepts a token with the real JWKS URL', async () => {
    const jwksUrl = `${api.url}/api/projects/${project.id}/production/jwks.json`;
    expect((await verifyAccessToken(token, { jwksUrl }, production())).sub).toBe(userId);
    // The one-object form of the wording.
    expect((await verifyAccessToken(token, { jwksUrl, ...production() })).sub).toBe(userId);
  });

  it('refuses a token of another project or another environment', async () => {
    await expect(verifyAccessToken(token, { publicKeyPem: project.publicKeys.production }, { projectId: other.id, environment: 'production' })).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(verifyAccessToken(token, { publicKeyPem: other.publicKeys.production }, { projectId: project.id, environment: 'production' })).rejects.toMatchObject({ code: 'invalid_token' });
    // A sandbox token checked with the sandbox key but expected in production: refused on `env`.
    const sandbox = await createSvcClient({ apiKey: project.sandbox, baseUrl: api.url }).signup({ email: 'sam@example.com', password: 'correct horse battery' });
    await expect(verifyAccessToken(sandbox.accessToken, { publicKeyPem: project.publicKeys.sandbox }, production())).rejects.toMatchObject({
      code: 'invalid_token',
      message: expect.stringContaining('sandbox'),
    });
  });

  it('refuses an HS256 token keyed with the public key (algorithm confusion)', async () => {
    const { SignJWT } = await import('jose');
    const forged = await new SignJWT({ env: 'production', email: 'mallory@example.com', role: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setAudience(project.id)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(project.publicKeys.production));
    await expect(verifyAccessToken(forged, { publicKeyPem: project.publicKeys.production }, production())).rejects.toMatchObject({ code: 'invalid_token' });
    const jwksUrl = `${api.url}/api/projects/${project.id}/production/jwks.json`;
    await expect(verifyAccessToken(forged, { jwksUrl }, production())).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('refuses an expired token', async () => {
    api.clock.advance(-2 * 3600);
    const old = await createSvcClient({ apiKey: project.live, baseUrl: api.url }).login({ email: 'ada@example.com', password: 'correct horse battery' });
    api.clock.advance(2 * 3600);
    if (old.twoFactorRequired) throw new Error('unexpected challenge');
    await expect(verifyAccessToken(old.accessToken, { publicKeyPem: project.publicKeys.production }, production())).rejects.toMatchObject({
      code: 'invalid_token',
      message: expect.stringContaining('exp'),
    });
  });
});
