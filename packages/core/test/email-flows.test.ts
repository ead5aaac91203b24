import { deliverOutbox } from '../src/use-cases/email/deliver-outbox';
import { RecordingMailer } from '../src/testing/recording-mailer';
import { serviceWithProject } from './helpers';

const URLS = { magicLinkUrl: 'https://app.test/magic', passwordResetUrl: 'https://app.test/reset' };

describe('e-mail flows in core', () => {
  it('concurrent magic-link requests for a new address create one user and mail that user', async () => {
    const { service, production, deps } = await serviceWithProject(URLS);
    await Promise.all(Array.from({ length: 5 }, () => service.magicLink.request(production, { email: 'race@example.test' })));
    expect(await deps.users.count(production.scope)).toBe(1);
    const mailer = new RecordingMailer();
    expect(await deliverOutbox({ ...deps, mailer })).toMatchObject({ sent: 5 });
    const links = mailer.sent.map((m) => new URL(/https:\S+/.exec(m.text)![0]));
    // Each request superseded the one before: only the newest link signs in.
    const results = await Promise.allSettled(links.map((l) => service.magicLink.verify(production.project, l.searchParams.get('token')!)));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'fulfilled']);
  });

  it('a password update of a verified account keeps TOTP on', async () => {
    const { service, production, deps } = await serviceWithProject(URLS);
    const { user } = await service.signUp(production, { email: 'ada@example.test', password: 'old password' });
    // Unverified, the reset would be the first proof of the mailbox, which ends TOTP (mailbox-proof.test.ts).
    await deps.users.markEmailVerified(production.scope, user.id);
    const now = deps.clock.now();
    await deps.twoFactor.beginTotp(production.scope, user.id, { sealedSecret: 's', createdAt: now });
    await deps.twoFactor.enableTotp(production.scope, user.id, { sealedSecret: 's', usedStep: 1, recoveryCodeHashes: [], enabledAt: now });
    await service.passwordReset.request(production, { email: 'ada@example.test' });
    const mailer = new RecordingMailer();
    await deliverOutbox({ ...deps, mailer });
    const token = new URL(/https:\S+/.exec(mailer.sent[0].text)![0]).searchParams.get('token')!;
    await service.passwordReset.update(production, { token, newPassword: 'new password' });
    expect((await deps.twoFactor.findTotp(production.scope, user.id))?.status).toBe('enabled');
    expect((await deps.users.findById(production.scope, user.id))?.emailVerified).toBe(true);
    await expect(service.logIn(production, { email: 'ada@example.test', password: 'new password' })).resolves.toMatchObject({ twoFactorRequired: true });
  });
});
