import { deliverOutbox } from '../src/use-cases/email/deliver-outbox';
import { RecordingMailer } from '../src/testing/recording-mailer';
import { PASSWORD, serviceWithProject } from './helpers';

// A known client is exempt from the per-account lockout (docs/security.md, "Rate limits"). That
// exemption belongs to whoever signed in from it: when the account changes hands (the first proof
// of the mailbox ends a squatter's claim) or its password is set anew, the clients known so far
// must count as unknown again.

const URLS = { magicLinkUrl: 'https://app.example.test/magic', passwordResetUrl: 'https://app.example.test/reset' };
const EMAIL = 'owner@example.test';
const NEW_PASSWORD = 'a new password of mine';

async function setUp() {
  const ctx = await serviceWithProject(URLS);
  const mailer = new RecordingMailer();
  const latestToken = async () => {
    await deliverOutbox({ ...ctx.deps, mailer });
    return new URL(/https:\S+/.exec(mailer.sentTo(EMAIL).at(-1)!.text)![0]).searchParams.get('token')!;
  };
  /** Signs in from `client` with `password` and tells whether the client counted as unknown. */
  const countedAsUnknown = async (client: { address: string; deviceId: string }, password: string) => {
    let unknown = false;
    const unknownClient = async () => {
      unknown = true;
    };
    await ctx.service.logIn(ctx.production, { email: EMAIL, password }, { client, unknownClient }).catch(() => undefined);
    return unknown;
  };
  /** An account whose address is verified (a reset proves the mailbox and keeps the password it sets). */
  const verifiedAccount = async (password: string) => {
    await ctx.service.signUp(ctx.production, { email: EMAIL, password: 'the password at sign-up' });
    await ctx.service.passwordReset.request(ctx.production, { email: EMAIL });
    await ctx.service.passwordReset.update(ctx.production, { token: await latestToken(), newPassword: password });
  };
  return { ...ctx, latestToken, countedAsUnknown, verifiedAccount };
}

describe('known clients are forgotten when the account changes hands', () => {
  const client = { address: '198.51.100.7', deviceId: 'device-of-the-first-holder' };

  it('a password reset forgets every client known to the account', async () => {
    const { service, production: key, latestToken, countedAsUnknown, verifiedAccount } = await setUp();
    await verifiedAccount(PASSWORD);
    await service.logIn(key, { email: EMAIL, password: PASSWORD }, { client });
    expect(await countedAsUnknown(client, PASSWORD)).toBe(false);

    await service.passwordReset.request(key, { email: EMAIL });
    await service.passwordReset.update(key, { token: await latestToken(), newPassword: NEW_PASSWORD });
    expect(await countedAsUnknown(client, NEW_PASSWORD)).toBe(true);
  });

  it("the first proof of the mailbox forgets the clients of the squatter's claim", async () => {
    const { service, production: key, latestToken, countedAsUnknown } = await setUp();
    await service.signUp(key, { email: EMAIL, password: PASSWORD });
    await service.logIn(key, { email: EMAIL, password: PASSWORD }, { client });
    expect(await countedAsUnknown(client, PASSWORD)).toBe(false);

    await service.magicLink.request(key, { email: EMAIL });
    await service.magicLink.verify(key.project, await latestToken());
    expect(await countedAsUnknown(client, PASSWORD)).toBe(true);
  });

  it('a sign-in by magic link of a verified account keeps the clients known', async () => {
    const { service, production: key, latestToken, countedAsUnknown, verifiedAccount } = await setUp();
    await verifiedAccount(PASSWORD);
    await service.logIn(key, { email: EMAIL, password: PASSWORD }, { client });
    expect(await countedAsUnknown(client, PASSWORD)).toBe(false);
    await service.magicLink.request(key, { email: EMAIL });
    await service.magicLink.verify(key.project, await latestToken());
    expect(await countedAsUnknown(client, PASSWORD)).toBe(false);
  });
});
