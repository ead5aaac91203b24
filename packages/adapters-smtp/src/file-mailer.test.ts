import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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

  it("makes the folder again when it was removed, and a re-sent mail's file private again whatever its mode was", async () => {
    const mailbox = join(dir, 'mail');
    const mailer = new FileMailer(mailbox, { info: () => undefined });
    const mail = { to: 'a@example.test', subject: 's', text: 't', html: 'h', messageId: '<again@svc>' };
    await mailer.send(mail);
    rmSync(mailbox, { recursive: true });
    await mailer.send({ ...mail, messageId: '<after-removal@svc>' });
    expect(readdirSync(mailbox)).toEqual(['after-removal@svc.eml']);
    expect(statSync(mailbox).mode & 0o777).toBe(0o700);
    const file = join(mailbox, 'after-removal@svc.eml');
    chmodSync(file, 0o644);
    await mailer.send({ ...mail, messageId: '<after-removal@svc>', text: 'second' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain('second');
  });

  it('in development, also logs the link and writes it beside the .eml, each on one line', async () => {
    const logs: { details: object; message: string }[] = [];
    const mailer = new FileMailer(dir, { info: (details, message) => logs.push({ details, message }) }, { from: 'svc <no-reply@svc.test>', showLinks: true });
    // Longer than a quoted-printable line (76 characters): the .eml cuts it, the log and the .txt do not.
    const link = `https://app.example.test/magic-link?token=ml_sbx_${'A'.repeat(60)}&project=6f1d2c3b-0000-4000-8000-000000000001`;
    await mailer.send({ to: 'ada@example.test', subject: 'Sign in', text: `Open ${link}\nor ignore this mail.`, html: `<a href="${link}">x</a>`, messageId: '<dev@svc>' });
    expect(readFileSync(join(dir, 'dev@svc.eml'), 'utf8')).not.toContain(link);
    expect(readFileSync(join(dir, 'dev@svc.eml.links.txt'), 'utf8')).toBe(`${link}\n`);
    expect(statSync(join(dir, 'dev@svc.eml.links.txt')).mode & 0o777).toBe(0o600);
    expect(logs).toHaveLength(1);
    expect(logs[0].message).toBe(`mail written to the file mailbox; its link (development only): ${link}`);
    expect(logs[0].details).toMatchObject({ links: [link] });
    expect(JSON.stringify(logs)).not.toContain('ada@example.test');
  });
});
