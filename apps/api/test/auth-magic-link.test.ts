import request from 'supertest';
import { admin, createProject, ISO_DATE, signUp } from './helpers';
import { buildEmailApp, countUsers, createMailProject, requestMagicLink, tokenOf, verify } from './email-helpers';

const SUCCESS = { data: { success: true } };

describe('POST /api/auth/magic-link', () => {
  it('answers success, and the mail links to magicLinkUrl (its query kept) with token and project', async () => {
    const { app, deliver, mailer, linkTo } = buildEmailApp();
    const project = await createMailProject(app);
    await signUp(app, project.live, 'ada@example.com');
    expect((await requestMagicLink(app, project.live, { email: ' ADA@example.com ' }).expect(200)).body).toEqual(SUCCESS);
    expect(mailer.sent).toHaveLength(0); // nothing is sent inline
    expect(await deliver()).toMatchObject({ sent: 1 });
    const link = linkTo('ada@example.com');
    expect(`${link.origin}${link.pathname}`).toBe('https://app.example.test/auth/magic');
    expect(link.searchParams.get('from')).toBe('mail');
    expect(link.searchParams.get('project')).toBe(project.id);
    expect(tokenOf(link)).toMatch(/^ml_live_[A-Za-z0-9_-]{43}$/);
    const [mail] = mailer.sent;
    expect(mail.subject).toBe('Your sign-in link for Mail project');
    expect(mail.html).toContain(`href="${link.href.replace(/&/g, '&amp;')}"`);
    expect(mail.messageId).toMatch(/^<[0-9a-f-]{36}@svc>$/);
  });

  it('creates a passwordless, unverified user by default; a later sign-up is 409', async () => {
    const { app, deps } = buildEmailApp();
    const project = await createMailProject(app);
    await requestMagicLink(app, project.live, { email: 'new@example.com' }).expect(200);
    const users = (await admin(app).get(`/admin/projects/${project.id}/environments/production/users?email=new@example.com`).expect(200)).body.data.users;
    expect(users).toMatchObject([{ email: 'new@example.com', emailVerified: false }]);
    expect((await deps.users.findByEmail({ projectId: project.id, environment: 'production' }, 'new@example.com'))?.passwordHash).toBeNull();
    await request(app).post('/api/auth/signup').set('X-API-Key', project.live).send({ email: 'new@example.com', password: 'long enough' }).expect(409);
  });

  it('createIfNotExists: false creates nobody and sends nothing, yet answers success', async () => {
    const { app, deps, deliver, mailer } = buildEmailApp();
    const project = await createMailProject(app);
    expect((await requestMagicLink(app, project.live, { email: 'ghost@example.com', createIfNotExists: false }).expect(200)).body).toEqual(SUCCESS);
    await deliver();
    expect(await countUsers(deps, project.id)).toBe(0);
    expect(mailer.attempts).toHaveLength(0);
  });

  it('counts created users toward the plan limit; at the limit nobody is created, still success; sandbox has no limit', async () => {
    const { app, deps, deliver, mailer } = buildEmailApp();
    const project = await createMailProject(app, { userLimit: 2 });
    await signUp(app, project.live, 'first@example.com');
    await requestMagicLink(app, project.live, { email: 'second@example.com' }).expect(200);
    expect(await countUsers(deps, project.id)).toBe(2);
    expect((await requestMagicLink(app, project.live, { email: 'third@example.com' }).expect(200)).body).toEqual(SUCCESS);
    expect(await countUsers(deps, project.id)).toBe(2);
    await request(app).post('/api/auth/signup').set('X-API-Key', project.live).send({ email: 'fourth@example.com', password: 'long enough' }).expect(403);
    for (const n of [1, 2, 3]) await requestMagicLink(app, project.sandbox, { email: `s${n}@example.com` }).expect(200);
    expect(await countUsers(deps, project.id, 'sandbox')).toBe(3);
    await deliver();
    expect(mailer.sent.map((m) => m.to).sort()).toEqual(['s1@example.com', 's2@example.com', 's3@example.com', 'second@example.com']);
  });

  it('sends nothing to a banned user, and says nothing about it', async () => {
    const { app, deliver, mailer } = buildEmailApp();
    const project = await createMailProject(app);
    const { user } = await signUp(app, project.live, 'banned@example.com');
    await admin(app).post(`/admin/projects/${project.id}/environments/production/users/${user.id}/ban`).expect(200);
    expect((await requestMagicLink(app, project.live, { email: 'banned@example.com' }).expect(200)).body).toEqual(SUCCESS);
    await deliver();
    expect(mailer.attempts).toHaveLength(0);
  });

  it('400 validation_error for a bad body, and for a project without magicLinkUrl (naming the setting)', async () => {
    const { app } = buildEmailApp();
    const project = await createMailProject(app);
    for (const body of [{}, { email: 'not-an-email' }, { email: 'a@example.com', createIfNotExists: 'yes' }]) {
      expect((await requestMagicLink(app, project.live, body).expect(400)).body.error).toBe('validation_error');
    }
    const bare = await createProject(app);
    const res = await requestMagicLink(app, bare.live, { email: 'a@example.com' }).expect(400);
    expect(res.body).toEqual({ error: 'validation_error', message: expect.stringContaining('magicLinkUrl') });
  });

  it('401 missing_api_key and invalid_api_key', async () => {
    const { app } = buildEmailApp();
    expect((await request(app).post('/api/auth/magic-link').send({ email: 'a@example.com' }).expect(401)).body.error).toBe('missing_api_key');
    expect((await requestMagicLink(app, 'svc_live_nope', { email: 'a@example.com' }).expect(401)).body.error).toBe('invalid_api_key');
    expect((await requestMagicLink(app, 'other_prefix', { email: 'a@example.com' }).expect(401)).body.error).toBe('invalid_api_key');
  });

  it('429 rate_limited after 5 an hour for one address and e-mail', async () => {
    const { app, clock } = buildEmailApp();
    const project = await createMailProject(app);
    for (let i = 0; i < 5; i += 1) await requestMagicLink(app, project.live, { email: 'ada@example.com' }).expect(200);
    const res = await requestMagicLink(app, project.live, { email: 'Ada@Example.com' }).expect(429);
    expect(res.body.error).toBe('rate_limited');
    expect(res.headers['retry-after']).toBe('3600');
    await requestMagicLink(app, project.live, { email: 'bob@example.com' }).expect(200);
    clock.advance(3600);
    await requestMagicLink(app, project.live, { email: 'ada@example.com' }).expect(200);
  });

  it('a newer link supersedes the older one', async () => {
    const { app, deliver, mailer } = buildEmailApp();
    const project = await createMailProject(app);
    await requestMagicLink(app, project.live, { email: 'ada@example.com' }).expect(200);
    await requestMagicLink(app, project.live, { email: 'ada@example.com' }).expect(200);
    await deliver();
    const [older, newer] = mailer.sentTo('ada@example.com').map((m) => new URL(/https:\/\/\S+/.exec(m.text)![0]));
    expect((await verify(app, older).expect(401)).body.error).toBe('invalid_magic_link');
    await verify(app, newer).expect(200);
  });

  it('uses the project template overrides, escaping values in html; unusable overrides are refused', async () => {
    const { app, deliver, mailer } = buildEmailApp();
    const project = await createMailProject(app, { name: 'Shop <b>&</b>' });
    await admin(app)
      .patch(`/admin/projects/${project.id}`, { emailTemplates: { magicLink: { text: 'x' } } })
      .expect(400);
    await admin(app)
      .patch(`/admin/projects/${project.id}`, { emailTemplates: { magicLink: { subject: 'Hi {{nam}}' } } })
      .expect(400);
    await admin(app)
      .patch(`/admin/projects/${project.id}`, { emailTemplates: { other: {} } })
      .expect(400);
    const emailTemplates = { magicLink: { subject: 'Log in to {{projectName}}', html: '<p>{{projectName}}: <a href="{{link}}">go</a> ({{expiresInMinutes}} min)</p>' } };
    const patched = await admin(app).patch(`/admin/projects/${project.id}`, { emailTemplates }).expect(200);
    expect(patched.body.data.project.emailTemplates).toEqual(emailTemplates);
    await requestMagicLink(app, project.live, { email: 'ada@example.com' }).expect(200);
    await deliver();
    const [mail] = mailer.sent;
    expect(mail.subject).toBe('Log in to Shop <b>&</b>');
    expect(mail.html).toMatch(/^<p>Shop &lt;b&gt;&amp;&lt;\/b&gt;: <a href="https:\/\/app\.example\.test\/auth\/magic\?from=mail&amp;token=ml_live_[^"]+">go<\/a> \(15 min\)<\/p>$/);
    expect(mail.text).toContain('use this link to sign in to Shop <b>&</b>:'); // the default text part, not escaped
    await admin(app).patch(`/admin/projects/${project.id}`, { emailTemplates: null }).expect(200);
  });
});

describe('GET /api/auth/magic-link/verify', () => {
  async function linkFor(email = 'ada@example.com', env: 'live' | 'sandbox' = 'live', body: Record<string, unknown> = {}) {
    const built = buildEmailApp();
    const project = await createMailProject(built.app, body);
    await requestMagicLink(built.app, project[env], { email }).expect(200);
    await built.deliver();
    return { ...built, project, link: built.linkTo(email) };
  }

  it('signs the user in: MagicLinkVerifyUser, tokens, the address verified', async () => {
    const { app, link, project, logs } = await linkFor();
    const res = await verify(app, link).expect(200);
    expect(logs.join('')).not.toContain(tokenOf(link).slice(8)); // the query never reaches the log
    const { user, accessToken, refreshToken, expiresIn } = res.body.data;
    expect(Object.keys(res.body.data).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'user']);
    expect(Object.keys(user).sort()).toEqual(['createdAt', 'email', 'id', 'meta', 'role']);
    expect(user).toMatchObject({ email: 'ada@example.com', role: 'user', meta: {} });
    expect(user.createdAt).toMatch(ISO_DATE);
    expect(expiresIn).toBe(900);
    expect(res.headers['cache-control']).toBe('no-store');
    const me = await request(app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${accessToken}`).expect(200);
    expect(me.body.data.user).toMatchObject({ id: user.id, emailVerified: true });
    await request(app).post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken }).expect(200);
  });

  it('works for sandbox links (the token names its environment)', async () => {
    const { app, link, project } = await linkFor('sam@example.com', 'sandbox');
    expect(tokenOf(link)).toMatch(/^ml_sbx_/);
    const { accessToken } = (await verify(app, link).expect(200)).body.data;
    await request(app).get('/api/auth/me').set('X-API-Key', project.sandbox).set('Authorization', `Bearer ${accessToken}`).expect(200);
    await request(app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${accessToken}`).expect(401);
  });

  it('401 invalid_magic_link for a wrong, used, expired, other-project, re-marked or missing token', async () => {
    const { app, link, project, clock, deliver, linkTo } = await linkFor();
    const other = await createMailProject(app);
    const token = tokenOf(link);
    const invalid = async (query: { token?: string; project?: string }) =>
      expect((await verify(app, query).expect(401)).body).toEqual({ error: 'invalid_magic_link', message: 'The magic link is not valid.' });
    await invalid({ token: `ml_live_${'A'.repeat(43)}`, project: project.id });
    await invalid({ token, project: other.id });
    await invalid({ token: token.replace('ml_live_', 'ml_sbx_'), project: project.id });
    await invalid({ token, project: 'not-a-uuid' });
    await invalid({ project: project.id });
    await invalid({ token });
    await verify(app, link).expect(200);
    await invalid({ token, project: project.id });
    await requestMagicLink(app, project.live, { email: 'late@example.com' }).expect(200);
    await deliver();
    clock.advance(15 * 60);
    await invalid(Object.fromEntries(linkTo('late@example.com').searchParams));
  });

  it('404 user_not_found when the user was deleted after the link was sent; 403 when banned', async () => {
    const { app, link, project, deps, deliver, linkTo } = await linkFor('gone@example.com');
    const scope = { projectId: project.id, environment: 'production' as const };
    const gone = (await deps.users.findByEmail(scope, 'gone@example.com'))!;
    await admin(app).delete(`/admin/projects/${project.id}/environments/production/users/${gone.id}`).expect(200);
    expect((await verify(app, link).expect(404)).body.error).toBe('user_not_found');
    await requestMagicLink(app, project.live, { email: 'bad@example.com' }).expect(200);
    await deliver();
    const bad = (await deps.users.findByEmail(scope, 'bad@example.com'))!;
    await admin(app).post(`/admin/projects/${project.id}/environments/production/users/${bad.id}/ban`).expect(200);
    expect((await verify(app, linkTo('bad@example.com')).expect(403)).body.error).toBe('user_banned');
  });

  it('of 20 parallel verifies of one link exactly one succeeds', async () => {
    const { app, link } = await linkFor();
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify(app, link)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 401 && r.body.error === 'invalid_magic_link')).toHaveLength(19);
  });

  it('CORS by allowedOrigins; HEAD, preflights and refused origins never consume the link', async () => {
    const { app, link } = await linkFor('ada@example.com', 'live', { allowedOrigins: ['https://app.example.test'] });
    const path = `/api/auth/magic-link/verify?${link.searchParams}`;
    await request(app).head(path).expect(404);
    const preflight = await request(app).options(path).set('Origin', 'https://app.example.test').set('Access-Control-Request-Method', 'GET').expect(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example.test');
    const refused = await request(app).get(path).set('Origin', 'https://evil.example').expect(403);
    expect(refused.body.error).toBe('origin_not_allowed');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    const ok = await request(app).get(path).set('Origin', 'https://app.example.test').expect(200);
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example.test');
    expect(ok.headers.vary).toMatch(/Origin/);
  });

  it('any origin may verify when allowedOrigins is empty', async () => {
    const { app, link } = await linkFor();
    const res = await verify(app, link).set('Origin', 'https://anywhere.example').expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://anywhere.example');
  });

  it('a verified user with TOTP on gets the second-factor challenge instead of tokens', async () => {
    const { app, link, project, deps, clock } = await linkFor('totp@example.com');
    const scope = { projectId: project.id, environment: 'production' as const };
    const user = (await deps.users.findByEmail(scope, 'totp@example.com'))!;
    // On an unverified account the link would be the first proof of the mailbox, which ends TOTP (takeover.test.ts).
    await deps.users.markEmailVerified(scope, user.id);
    await deps.twoFactor.beginTotp(scope, user.id, { sealedSecret: 'sealed', createdAt: clock.now() });
    await deps.twoFactor.enableTotp(scope, user.id, { sealedSecret: 'sealed', usedStep: 1, recoveryCodeHashes: [], enabledAt: clock.now() });
    const res = await verify(app, link).expect(200);
    expect(res.body.data).toEqual({ twoFactorRequired: true, twoFactorToken: expect.any(String), methods: ['totp'] });
  });

  it('is limited per address (no key, so X-Svc-Client-Ip is not trusted)', async () => {
    const { app, project } = await linkFor();
    const query = { token: `ml_live_${'B'.repeat(43)}`, project: project.id };
    for (let i = 0; i < 30; i += 1) await verify(app, query).set('X-Svc-Client-Ip', `203.0.113.${i}`).expect(401);
    expect((await verify(app, query).expect(429)).body.error).toBe('rate_limited');
  });
});
