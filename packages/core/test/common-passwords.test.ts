import { deliverOutbox } from '../src/use-cases/email/deliver-outbox';
import { RecordingMailer } from '../src/testing/recording-mailer';
import { PASSWORD, serviceWithProject } from './helpers';

// The common-password rule over the in-memory list (password, 12345678, ...); the shipped list and
// HTTP are covered in adapters-crypto and apps/api/test/common-passwords.test.ts.

const URLS = { passwordResetUrl: 'https://app.test/reset' };

describe('common passwords', () => {
  it('are accepted by default: the contract only asks for 8 characters', async () => {
    const { service, production } = await serviceWithProject();
    await expect(service.signUp(production, { email: 'ada@example.test', password: 'password' })).resolves.toBeDefined();
  });

  it('are refused at sign-up when the project turns the check on, in any case, without echoing the password', async () => {
    const { service, production, deps } = await serviceWithProject({ rejectCommonPasswords: true });
    for (const password of ['password', 'PASSWORD', '12345678']) {
      // One fixed message whatever the password: it names the field, never the value.
      await expect(service.signUp(production, { email: 'ada@example.test', password })).rejects.toMatchObject({
        code: 'validation_error',
        message: 'password is one of the most common passwords; choose a less predictable one.',
      });
    }
    expect(await deps.users.count(production.scope)).toBe(0);
    await expect(service.signUp(production, { email: 'ada@example.test', password: PASSWORD })).resolves.toBeDefined();
  });

  it('are refused at password update, and the reset link still works for a better password', async () => {
    const { service, production, deps } = await serviceWithProject({ ...URLS, rejectCommonPasswords: true });
    await service.signUp(production, { email: 'ada@example.test', password: PASSWORD });
    await service.passwordReset.request(production, { email: 'ada@example.test' });
    const mailer = new RecordingMailer();
    await deliverOutbox({ ...deps, mailer });
    const token = new URL(/https:\S+/.exec(mailer.sent[0].text)![0]).searchParams.get('token')!;
    await expect(service.passwordReset.update(production, { token, newPassword: '12345678' })).rejects.toMatchObject({
      code: 'validation_error',
      message: expect.stringMatching(/^newPassword is one of the most common/),
    });
    await service.passwordReset.update(production, { token, newPassword: 'a much better passphrase' });
    await expect(service.logIn(production, { email: 'ada@example.test', password: 'a much better passphrase' })).resolves.toBeDefined();
  });
});
