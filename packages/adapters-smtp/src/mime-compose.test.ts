import { createTransport, type SendMailOptions } from 'nodemailer';
import { simpleParser } from 'mailparser';
import { composeUnixMessage } from './mime-compose';

/** What nodemailer's stream transport writes for `mail` (the FileMailer's path before mime-compose.ts). */
async function streamed(mail: SendMailOptions): Promise<string> {
  const transport = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return ((await transport.sendMail(mail)).message as Buffer).toString('utf8');
}

// The same boundary and date for both, so the two messages can be compared byte for byte.
const fixed = { baseBoundary: 'b5a1e0c2f3d4', date: new Date('2026-11-26T08:00:00Z') };
const link = 'https://app.example.test/auth/magic?token=ml_live_0123456789abcdefghijABCDEFGHIJ-_0123456789abc&project=4f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b';
const base: SendMailOptions = {
  ...fixed,
  from: 'svc <no-reply@localhost>',
  to: 'ada@example.test',
  subject: 'Your sign-in link for Acme',
  text: `Hello,\n\nuse this link to sign in to Acme:\n\n${link}\n\nOr enter this code: 123456\n`,
  html: `<p>Hello,</p><p><a href="${link}">Sign in to Acme</a></p><p>Or enter this code: <strong>123456</strong></p>`,
  messageId: '<6f1d2c3b-0000-4000-8000-000000000001@svc>',
};

describe('composeUnixMessage (the file mailbox composition without streams)', () => {
  const cases: [string, SendMailOptions][] = [
    ['a magic-link mail (quoted-printable parts, a long link)', base],
    ['short ASCII lines (7bit parts)', { ...base, text: 'Hi.\n', html: '<p>Hi.</p>' }],
    ['a text part only', { ...base, html: undefined }],
    ['an html part only', { ...base, text: undefined }],
    ['an empty html part', { ...base, html: '' }],
    [
      'accents in subject, body and display names',
      {
        ...base,
        from: 'Équipe Ünïcode <no-reply@localhost>',
        subject: 'Votre lien de connexion à Café ☕',
        text: `Bonjour Zoë,\n\nvoilà : ${link}\n`,
        html: `<p>Bonjour Zoë, <a href="${link}">ouvrir</a> — merci</p>`,
      },
    ],
    [
      'a mostly non-Latin body (base64 parts)',
      {
        ...base,
        subject: 'Ссылка для входа',
        text: `Здравствуйте! Нажмите на ссылку, чтобы войти в приложение. ${'Ещё немного текста. '.repeat(12)}\n${link}\n`,
        html: `<p>${'Привет, мир! '.repeat(20)}</p>`,
      },
    ],
    ['trailing whitespace, tabs, CRLF and a lone CR in the text', { ...base, text: `line with trailing spaces   \nline with a tab\t\r\nlone\rCR\n\n  indented ${'x'.repeat(200)}  ` }],
    ['an internationalised recipient domain and a quoted display name', { ...base, to: '"Lovelace, Ada" <ada@bücher.example>' }],
    ['extra headers', { ...base, headers: { 'X-Svc-Template': 'magic_link', 'List-Unsubscribe': '<https://app.example.test/unsubscribe>' } }],
    ['a very long subject', { ...base, subject: `Sign in to ${'Acme Corporation International '.repeat(6)}` }],
    [
      'attachments given as strings (a multipart/mixed tree)',
      {
        ...base,
        attachments: [
          { filename: 'notes.txt', content: 'attached text  \n' },
          { filename: 'data.bin', content: 'bytes\r\nand a lone \r', contentType: 'application/octet-stream', contentTransferEncoding: 'quoted-printable' },
        ],
      },
    ],
  ];

  it.each(cases)('writes %s byte for byte as nodemailer streams it', async (_name, mail) => {
    const composed = composeUnixMessage(mail);
    expect(composed).not.toBeNull();
    expect(composed!.toString('utf8')).toBe(await streamed(mail));
  });

  it('reads back as the mail it was given', async () => {
    const parsed = await simpleParser(composeUnixMessage(base)!);
    expect(parsed.messageId).toBe(base.messageId);
    expect(parsed.subject).toBe(base.subject);
    expect(parsed.text).toBe(base.text);
    expect(parsed.html).toBe(base.html);
  });

  it('leaves to nodemailer what it does not cover: a body that is not a string', () => {
    expect(composeUnixMessage({ ...base, text: Buffer.from('bytes') })).toBeNull();
    expect(composeUnixMessage({ ...base, attachments: [{ filename: 'a.txt', path: '/nonexistent/a.txt' }] })).toBeNull();
  });
});
