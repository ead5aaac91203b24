import request from 'supertest';
import { buildEmailApp, createMailProject } from './email-helpers';

// Changing a signed-in user's e-mail address over HTTP (in-memory storage, RecordingMailer): a
// link and a code to the new address, a notice to the old one, the change only on confirmation.

const PASSWORD = 'correct horse battery';

async function setup() {
  const built = buildEmailApp();
  const project = await createMailProject(built.app, { emailVerificationUrl: 'https://app.example.test/auth/verify' });
  const key = { 'X-API-Key': project.live };
  const signUp = async (email: string) =>
    (await request(built.app).post('/api/auth/signup').set(key).send({ email, password: PASSWORD }).expect(201)).body.data as { accessToken: string; user: { id: string } };
  const post = (path: string, body: object, bearer?: string) => {
    const req = request(built.app).post(path).set(key);
    return (bearer ? req.set('Authorization', `Bearer ${bearer}`) : req).send(body);
  };
  const mails = async (to: string) => {
    await built.deliver();
    return built.mailer.sentTo(to);
  };
  const codeIn = (text: string) => /code: (\d{6})/.exec(text)![1];
  return { ...built, project, signUp, post, mails, codeIn };
}

describe('changing the e-mail address', () => {
  it('mails the new address a link and a code, the old one a notice; the link makes the change', async () => {
    const { signUp, post, mails, linkTo, app, project } = await setup();
    const { accessToken, user } = await signUp('old@example.com');
    await post('/api/auth/email/change', { newEmail: ' New@Example.com ' }, accessToken).expect(200);
    const [notice] = await mails('old@example.com');
    expect(notice.subject).toBe('The e-mail address of your Mail project account is being changed');
    const [confirm] = await mails('new@example.com');
    expect(confirm.subject).toBe('Confirm your new Mail project e-mail address');
    const link = linkTo('new@example.com');
    expect(link.searchParams.get('token')).toMatch(/^ec_live_/);
    // Nothing changes until the confirmation.
    await post('/api/auth/login', { email: 'old@example.com', password: PASSWORD }).expect(200);
    const confirmed = await post('/api/auth/email/change/confirm', { token: link.searchParams.get('token') }).expect(200);
    expect(confirmed.body).toEqual({ data: { user: { id: user.id, email: 'new@example.com', emailVerified: true } } });
    await post('/api/auth/login', { email: 'old@example.com', password: PASSWORD }).expect(401);
    await post('/api/auth/login', { email: 'new@example.com', password: PASSWORD }).expect(200);
    const me = await request(app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${accessToken}`).expect(200);
    expect(me.body.data.user).toMatchObject({ email: 'new@example.com', emailVerified: true });
    await post('/api/auth/email/change/confirm', { token: link.searchParams.get('token') }).expect(401);
  });

  it('the code confirms it from the signed-in user; five wrong codes end it', async () => {
    const { signUp, post, mails, codeIn } = await setup();
    const { accessToken } = await signUp('coder@example.com');
    await post('/api/auth/email/change', { newEmail: 'coded@example.com' }, accessToken).expect(200);
    const code = codeIn((await mails('coded@example.com'))[0].text);
    expect((await post('/api/auth/email/change/confirm', { code }).expect(401)).body.error).toBe('invalid_token'); // no access token
    const wrong = (n: number) => String((Number(code) + n) % 1e6).padStart(6, '0');
    expect((await post('/api/auth/email/change/confirm', { code: wrong(1) }, accessToken).expect(401)).body.error).toBe('invalid_verification');
    for (let i = 2; i <= 4; i += 1) await post('/api/auth/email/change/confirm', { code: wrong(i) }, accessToken).expect(401);
    await post('/api/auth/email/change/confirm', { code }, accessToken).expect(200);

    const other = await signUp('again@example.com');
    await post('/api/auth/email/change', { newEmail: 'again-new@example.com' }, other.accessToken).expect(200);
    const second = codeIn((await mails('again-new@example.com'))[0].text);
    for (let i = 1; i <= 5; i += 1) await post('/api/auth/email/change/confirm', { code: wrong(i + 10) === second ? wrong(99) : wrong(i + 10) }, other.accessToken).expect(401);
    await post('/api/auth/email/change/confirm', { code: second }, other.accessToken).expect(401);
  });

  it('sends nothing for an address another user holds, and refuses one taken before the confirmation', async () => {
    const { signUp, post, mails, linkTo } = await setup();
    const { accessToken } = await signUp('mover@example.com');
    await signUp('holder@example.com');
    await post('/api/auth/email/change', { newEmail: 'holder@example.com' }, accessToken).expect(200);
    expect(await mails('holder@example.com')).toHaveLength(0);
    await post('/api/auth/email/change', { newEmail: 'later@example.com' }, accessToken).expect(200);
    await mails('later@example.com');
    const token = linkTo('later@example.com').searchParams.get('token');
    await signUp('later@example.com');
    expect((await post('/api/auth/email/change/confirm', { token }).expect(409)).body.error).toBe('user_already_exists');
  });

  it('needs a recent sign-in, and refuses bad input', async () => {
    const { signUp, post, clock } = await setup();
    const { accessToken } = await signUp('slow@example.com');
    expect((await post('/api/auth/email/change', { newEmail: 'slow@example.com' }, accessToken).expect(400)).body.message).toBe('newEmail is the current address.');
    expect((await post('/api/auth/email/change', { newEmail: 'not an address' }, accessToken).expect(400)).body.error).toBe('validation_error');
    expect((await post('/api/auth/email/change/confirm', { token: 'a', code: '123456' }).expect(400)).body.error).toBe('validation_error');
    clock.advance(10 * 60);
    expect((await post('/api/auth/email/change', { newEmail: 'fast@example.com' }, accessToken).expect(403)).body.error).toBe('reauthentication_required');
    await post('/api/auth/email/change', { newEmail: 'fast@example.com', currentPassword: PASSWORD }, accessToken).expect(200);
  });

  it('mails a notice when the password is changed', async () => {
    const { signUp, post, mails } = await setup();
    const { accessToken } = await signUp('notice@example.com');
    await post('/api/auth/password/change', { currentPassword: PASSWORD, newPassword: 'another long secret' }, accessToken).expect(200);
    const [notice] = await mails('notice@example.com');
    expect(notice.subject).toBe('Your Mail project password was changed');
    expect(notice.text).not.toContain('another long secret');
  });
});
