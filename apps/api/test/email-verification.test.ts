import request from 'supertest';
import { admin } from './helpers';
import { buildEmailApp, createMailProject } from './email-helpers';

// E-mail verification of password sign-ups over HTTP (in-memory storage, RecordingMailer): the
// project setting, the mail's link and code, verify, resend, and sign-in with `required`.

const VERIFY_URL = 'https://app.example.test/auth/verify';
const PASSWORD = 'correct horse battery';

async function setup(mode: 'off' | 'optional' | 'required', extra: Record<string, unknown> = {}) {
  const built = buildEmailApp();
  const project = await createMailProject(built.app, { emailVerification: mode, emailVerificationUrl: VERIFY_URL, ...extra });
  const post = (path: string, body: object) => request(built.app).post(path).set('X-API-Key', project.live).send(body);
  const signUp = (email: string) => post('/api/auth/signup', { email, password: PASSWORD });
  const login = (email: string) => post('/api/auth/login', { email, password: PASSWORD });
  /** The link and code of the latest verification mail to `email`, after one outbox round. */
  const mailTo = async (email: string) => {
    await built.afterAnswer.idle();
    await built.deliver();
    const mail = built.mailer.sentTo(email).at(-1);
    if (!mail) return null;
    return { mail, link: built.linkTo(email), code: /code: (\d{6})/.exec(mail.text)![1] };
  };
  const me = (accessToken: string) => request(built.app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${accessToken}`);
  return { ...built, project, post, signUp, login, mailTo, me };
}

describe('e-mail verification', () => {
  it('off (the default) sends nothing and signs up as the contract says', async () => {
    const { signUp, mailTo, app } = await setup('off');
    await signUp('ada@example.com').expect(201);
    expect(await mailTo('ada@example.com')).toBeNull();
    const created = await admin(app).post('/admin/projects', { name: 'Plain' }).expect(201);
    expect(created.body.data.project).toMatchObject({ emailVerification: 'off', emailVerificationUrl: null });
  });

  it('optional: signs up and in as before, mails a link and a code; the link confirms the address', async () => {
    const { signUp, mailTo, post, me, project } = await setup('optional');
    const session = (await signUp('ada@example.com').expect(201)).body.data;
    const { link, mail } = (await mailTo('ada@example.com'))!;
    expect(mail.subject).toBe('Confirm your Mail project e-mail address');
    expect(`${link.origin}${link.pathname}`).toBe(VERIFY_URL);
    expect(link.searchParams.get('project')).toBe(project.id);
    expect(link.searchParams.get('token')).toMatch(/^ev_live_/);
    expect((await me(session.accessToken).expect(200)).body.data.user.emailVerified).toBe(false);
    const verified = await post('/api/auth/email/verify', { token: link.searchParams.get('token') }).expect(200);
    expect(verified.body).toEqual({ data: { user: { id: session.user.id, email: 'ada@example.com', emailVerified: true } } });
    // A confirmation keeps what the confirming holder set up: the session and the password stay.
    expect((await me(session.accessToken).expect(200)).body.data.user.emailVerified).toBe(true);
    expect((await post('/api/auth/email/verify', { token: link.searchParams.get('token') }).expect(401)).body.error).toBe('invalid_verification');
  });

  it('required: sign-up creates the user without tokens; sign-in is refused until the code confirms it', async () => {
    const { signUp, login, mailTo, post, mailer } = await setup('required');
    const refused = await signUp('ada@example.com').expect(403);
    expect(refused.body.error).toBe('email_not_verified');
    expect(refused.body).not.toHaveProperty('data');
    const first = (await mailTo('ada@example.com'))!;
    expect((await login('ada@example.com').expect(403)).body.error).toBe('email_not_verified');
    expect(await mailTo('ada@example.com')).toMatchObject({ code: first.code }); // the open mail stands: nothing new
    expect(mailer.sentTo('ada@example.com')).toHaveLength(1);
    expect((await login('ada@example.com').send({ email: 'ada@example.com', password: 'wrong password' }).expect(401)).body.error).toBe('invalid_credentials');
    expect((await post('/api/auth/email/verify', { email: 'ada@example.com', code: first.code === '000000' ? '000001' : '000000' }).expect(401)).body.error).toBe('invalid_verification');
    await post('/api/auth/email/verify', { email: ' ADA@example.com', code: first.code }).expect(200);
    expect((await login('ada@example.com').expect(200)).body.data.accessToken).toEqual(expect.any(String));
  });

  it('required: a sign-in after the mail expired sends a new one; resend sends on demand and always succeeds', async () => {
    const { signUp, login, mailTo, post, clock, mailer } = await setup('required');
    await signUp('ada@example.com').expect(403);
    await mailTo('ada@example.com');
    clock.advance(24 * 60 * 60 + 1);
    await login('ada@example.com').expect(403);
    const second = (await mailTo('ada@example.com'))!;
    expect(mailer.sentTo('ada@example.com')).toHaveLength(2);
    expect((await post('/api/auth/email/verify/resend', { email: 'ada@example.com' }).expect(200)).body).toEqual({ data: { success: true } });
    const third = (await mailTo('ada@example.com'))!;
    expect(mailer.sentTo('ada@example.com')).toHaveLength(3);
    // The newer mail supersedes the older one.
    await post('/api/auth/email/verify', { token: second.link.searchParams.get('token') }).expect(401);
    await post('/api/auth/email/verify', { token: third.link.searchParams.get('token') }).expect(200);
    await post('/api/auth/email/verify/resend', { email: 'ada@example.com' }).expect(200);
    await post('/api/auth/email/verify/resend', { email: 'nobody@example.com' }).expect(200);
    expect(await mailTo('nobody@example.com')).toBeNull();
    expect(mailer.sentTo('ada@example.com')).toHaveLength(3); // verified: no more mail
  });

  it('five wrong codes end the mail', async () => {
    const { signUp, mailTo, post } = await setup('required');
    await signUp('ada@example.com').expect(403);
    const { code } = (await mailTo('ada@example.com'))!;
    for (let i = 1; i <= 5; i += 1) {
      await post('/api/auth/email/verify', { email: 'ada@example.com', code: String((Number(code) + i) % 1e6).padStart(6, '0') }).expect(401);
    }
    await post('/api/auth/email/verify', { email: 'ada@example.com', code }).expect(401);
  });

  it('refuses bad bodies, a project without the page, and settings it cannot serve', async () => {
    const { post, app, project } = await setup('optional');
    for (const body of [{}, { token: 'x', code: '123456' }, { email: 'ada@example.com' }, { token: '' }]) {
      expect((await post('/api/auth/email/verify', body).expect(400)).body.error).toBe('validation_error');
    }
    await admin(app).patch(`/admin/projects/${project.id}`, { emailVerificationUrl: null }).expect(200);
    const other = await setup('optional', { emailVerificationUrl: null });
    expect((await other.signUp('ada@example.com').expect(400)).body.message).toMatch(/emailVerificationUrl/);
    expect((await other.post('/api/auth/email/verify/resend', { email: 'ada@example.com' }).expect(400)).body.message).toMatch(/emailVerificationUrl/);
    const off = await setup('off');
    expect((await off.post('/api/auth/email/verify/resend', { email: 'ada@example.com' }).expect(400)).body.message).toMatch(/off/);
    expect((await admin(app).patch(`/admin/projects/${project.id}`, { emailVerification: 'sometimes' }).expect(400)).body.message).toMatch(/emailVerification must be one of off, optional, required/);
  });
});
