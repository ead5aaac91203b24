import { ADAPTERS, CookieJar, json, PASSWORD, postJson, startProxy, startRealApi, type RealApi, type RunningProxy } from './helpers';

// Magic links and password resets from a browser app behind the session proxy, against the real
// API: the proxy asks for the mails, and with the mailed token signs in (cookies) or sets the new
// password. Links are read from the sandbox mailbox.
describe.each(ADAPTERS)('mail routes (%s)', (adapter) => {
  let api: RealApi;
  let proxy: RunningProxy;
  let projectId: string;

  beforeAll(async () => {
    api = await startRealApi();
    const project = await api.createProject({ name: 'Mail routes', magicLinkUrl: 'http://localhost:3001/', passwordResetUrl: 'http://localhost:3001/' });
    projectId = project.id;
    proxy = await startProxy({ adapter, apiKey: project.sandbox, baseUrl: api.url });
  });
  afterAll(async () => {
    await proxy.close();
    await api.close();
  });

  const post = (path: string, body: object, jar?: CookieJar) => postJson(proxy, `/api/session/${path}`, body, jar ? { Cookie: jar.header() } : {});
  const session = (jar: CookieJar) => fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: jar.header() } });

  /** `token` and `project` of the newest mail of `template` to `email`, once queued. */
  async function mailed(email: string, template: 'magic_link' | 'password_reset'): Promise<{ token: string; project: string }> {
    for (let turn = 0; turn < 200; turn += 1) {
      const { body } = await api.admin('GET', `/admin/projects/${projectId}/environments/sandbox/outbox?email=${encodeURIComponent(email)}`);
      const mail = body.data.mails.find((m: { template: string }) => m.template === template);
      if (mail) {
        const link = new URL(mail.links[0]);
        return { token: link.searchParams.get('token')!, project: link.searchParams.get('project')! };
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`no ${template} mail to ${email}`);
  }

  it('mails a magic link and signs in with its token, once', async () => {
    expect(await json(await post('magic-link', { email: 'link@example.com' }))).toEqual({ data: { success: true } });
    const link = await mailed('link@example.com', 'magic_link');
    expect(link.project).toBe(projectId);
    const signedIn = await post('magic-link/verify', link);
    expect(signedIn.status).toBe(200);
    const body = await json(signedIn);
    expect(body.data.user.email).toBe('link@example.com');
    expect(JSON.stringify(body)).not.toContain(link.token.slice(10));
    expect(body.data).not.toHaveProperty('accessToken');
    expect((await json(await session(new CookieJar().store(signedIn)))).data.user.email).toBe('link@example.com');
    expect((await json(await post('magic-link/verify', link))).error).toBe('invalid_magic_link');
    expect((await post('magic-link/verify', {})).status).toBe(401);
  });

  it('mails a reset link, sets the new password with its token (ending every session), once', async () => {
    const jar = new CookieJar().store(await post('signup', { email: 'reset@example.com', password: PASSWORD }));
    expect(await json(await post('password/reset', { email: 'reset@example.com' }))).toEqual({ data: { success: true } });
    // An unknown address gets the same answer, and no mail.
    expect(await json(await post('password/reset', { email: 'nobody@example.com' }))).toEqual({ data: { success: true } });
    const { token } = await mailed('reset@example.com', 'password_reset');
    expect((await json(await post('password/update', { token, newPassword: 'short' }))).error).toBe('validation_error');
    expect(await json(await post('password/update', { token, newPassword: 'a brand new passphrase' }))).toEqual({ data: { success: true } });
    expect((await session(jar)).status).toBe(401);
    expect((await post('login', { email: 'reset@example.com', password: 'a brand new passphrase' })).status).toBe(200);
    expect((await json(await post('password/update', { token, newPassword: 'another passphrase' }))).error).toBe('invalid_reset_token');
  });
});
