import { createTransport, type SendMailOptions } from 'nodemailer';
import { simpleParser } from 'mailparser';
import { composeUnixMessage } from './mime-compose';
import { baseMail, mailFixtures } from './testing/mail-fixtures';

/** What nodemailer's stream transport writes for `mail` (the FileMailer's path before mime-compose.ts). */
async function streamed(mail: SendMailOptions): Promise<string> {
  const transport = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return ((await transport.sendMail(mail)).message as Buffer).toString('utf8');
}

describe('composeUnixMessage (the file mailbox composition without streams)', () => {
  it.each(mailFixtures)('writes %s byte for byte as nodemailer streams it', async (_name, mail) => {
    const composed = composeUnixMessage(mail);
    expect(composed).not.toBeNull();
    expect(composed!.toString('utf8')).toBe(await streamed(mail));
  });

  it('reads back as the mail it was given', async () => {
    const parsed = await simpleParser(composeUnixMessage(baseMail)!);
    expect(parsed.messageId).toBe(baseMail.messageId);
    expect(parsed.subject).toBe(baseMail.subject);
    expect(parsed.text).toBe(baseMail.text);
    expect(parsed.html).toBe(baseMail.html);
  });

  it('leaves to nodemailer what it does not cover: a body that is not a string', () => {
    expect(composeUnixMessage({ ...baseMail, text: Buffer.from('bytes') })).toBeNull();
    expect(composeUnixMessage({ ...baseMail, attachments: [{ filename: 'a.txt', path: '/nonexistent/a.txt' }] })).toBeNull();
  });
});
