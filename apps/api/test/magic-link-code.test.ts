import request from 'supertest';
import { signUp } from './helpers';
import { buildEmailApp, createMailProject, requestMagicLink, tokenOf, verify } from './email-helpers';

// The 6-digit code every magic-link mail carries, redeemed with POST /api/auth/magic-link/verify-code
// instead of the link: one single-use token either way, five wrong codes end it.

async function setup() {
  const built = buildEmailApp();
  const project = await createMailProject(built.app);
  const mailLink = async (email: string) => {
    await requestMagicLink(built.app, project.live, { email }).expect(200);
    await built.afterAnswer.idle();
    await built.deliver();
    const mail = built.mailer.sentTo(email).at(-1)!;
    return { code: /code: (?:<strong>)?(\d{6})/.exec(mail.text)![1], link: built.linkTo(email), mail };
  };
  const redeem = (email: string, code: string) => request(built.app).post('/api/auth/magic-link/verify-code').set('X-API-Key', project.live).send({ email, code });
  return { ...built, project, mailLink, redeem };
}

/** A 6-digit code other than `code`. */
const other = (code: string, n = 1) => String((Number(code) + n) % 1_000_000).padStart(6, '0');

describe('magic-link e-mail codes', () => {
  it('mails a code beside the link; the code signs in once, and the link dies with it', async () => {
    const { mailLink, redeem, app } = await setup();
    const { code, link, mail } = await mailLink('ada@example.com');
    expect(mail.html).toContain(`<strong>${code}</strong>`);
    const signedIn = await redeem(' ADA@example.com ', code.replace(/(\d{3})/, '$1 ')).expect(200);
    expect(signedIn.body.data).toMatchObject({ user: { email: 'ada@example.com' }, accessToken: expect.any(String), refreshToken: expect.any(String) });
    expect(Object.keys(signedIn.body.data.user).sort()).toEqual(['createdAt', 'email', 'id', 'meta', 'role']);
    expect((await redeem('ada@example.com', code).expect(401)).body.error).toBe('invalid_magic_link');
    expect((await verify(app, link).expect(401)).body.error).toBe('invalid_magic_link');
  });

  it('a used link ends the code; a newer mail supersedes the older code', async () => {
    const { mailLink, redeem, app } = await setup();
    const first = await mailLink('ada@example.com');
    const second = await mailLink('ada@example.com');
    expect((await redeem('ada@example.com', first.code === second.code ? other(first.code) : first.code).expect(401)).body.error).toBe('invalid_magic_link');
    await verify(app, second.link).expect(200);
    await redeem('ada@example.com', second.code).expect(401);
    expect(tokenOf(second.link)).not.toBe(tokenOf(first.link));
  });

  it('five wrong codes end it: the right one is refused after them', async () => {
    const { mailLink, redeem } = await setup();
    const { code } = await mailLink('ada@example.com');
    for (let i = 1; i <= 5; i += 1) expect((await redeem('ada@example.com', other(code, i)).expect(401)).body.error).toBe('invalid_magic_link');
    await redeem('ada@example.com', code).expect(401);
  });

  it('four wrong codes leave the right one working', async () => {
    const { mailLink, redeem } = await setup();
    const { code } = await mailLink('ada@example.com');
    for (let i = 1; i <= 4; i += 1) await redeem('ada@example.com', other(code, i)).expect(401);
    await redeem('ada@example.com', code).expect(200);
  });

  it('answers an unknown address as a wrong code, proves the mailbox and refuses bad input', async () => {
    const { mailLink, redeem, app, project, deps } = await setup();
    expect((await redeem('nobody@example.com', '123456').expect(401)).body).toEqual({ error: 'invalid_magic_link', message: 'The magic link is not valid.' });
    await signUp(app, project.live, 'squat@example.com');
    const { code } = await mailLink('squat@example.com');
    await redeem('squat@example.com', code).expect(200);
    const user = await deps.users.findByEmail({ projectId: project.id, environment: 'production' }, 'squat@example.com');
    expect(user).toMatchObject({ emailVerified: true, passwordHash: null });
    expect((await redeem('ada@example.com', '').expect(400)).body.error).toBe('validation_error');
    expect((await redeem('not an address', '123456').expect(400)).body.error).toBe('validation_error');
    expect((await request(app).post('/api/auth/magic-link/verify-code').send({ email: 'a@b.test', code: '1' }).expect(401)).body.error).toBe('missing_api_key');
  });
});
