import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { FileMailer } from './file-mailer';

describe('FileMailer (the embedded default)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-mailbox-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes each mail as a private .eml file and logs where, never the token', async () => {
    const logs: { details: object; message: string }[] = [];
    const mailer = new FileMailer(join(dir, 'mail'), { info: (details, message) => logs.push({ details, message }) });
    const messageId = '<6f1d2c3b-0000-4000-8000-000000000001@svc>';
    const link = 'https://app.example.test/magic?token=ml_sbx_SECRET&project=p';
    await mailer.send({ to: 'ada@example.test', subject: 'Sign in', text: `Open ${link}`, html: `<a href="${link}">x</a>`, messageId });

    const files = readdirSync(join(dir, 'mail'));
    expect(files).toEqual(['6f1d2c3b-0000-4000-8000-000000000001@svc.eml']);
    const file = join(dir, 'mail', files[0]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'mail')).mode & 0o777).toBe(0o700);
    const parsed = await simpleParser(readFileSync(file));
    expect(parsed.messageId).toBe(messageId);
    expect(parsed.text).toContain(link);
    expect(logs).toHaveLength(1);
    expect(JSON.stringify(logs)).toContain(file);
    expect(JSON.stringify(logs)).not.toContain('SECRET');
    expect(JSON.stringify(logs)).not.toContain('ada@example.test');
  });

  it('overwrites its own file when the same outbox mail is sent again', async () => {
    const mailer = new FileMailer(dir, { info: () => undefined });
    const mail = { to: 'a@example.test', subject: 's', text: 't', html: 'h', messageId: '<same@svc>' };
    await mailer.send(mail);
    await mailer.send({ ...mail, text: 'second' });
    expect(readdirSync(dir)).toEqual(['same@svc.eml']);
  });
});
