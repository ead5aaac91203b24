import type { SendMailOptions } from 'nodemailer';

// The same boundary, date and Message-ID for every path, so two messages can be compared byte for byte.
const fixed = { baseBoundary: 'b5a1e0c2f3d4', date: new Date('2026-11-26T08:00:00Z') };
const link = 'https://app.example.test/auth/magic?token=ml_live_0123456789abcdefghijABCDEFGHIJ-_0123456789abc&project=4f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b';
export const baseMail: SendMailOptions = {
  ...fixed,
  from: 'svc <no-reply@localhost>',
  to: 'ada@example.test',
  subject: 'Your sign-in link for Acme',
  text: `Hello,\n\nuse this link to sign in to Acme:\n\n${link}\n\nOr enter this code: 123456\n`,
  html: `<p>Hello,</p><p><a href="${link}">Sign in to Acme</a></p><p>Or enter this code: <strong>123456</strong></p>`,
  messageId: '<6f1d2c3b-0000-4000-8000-000000000001@svc>',
};

/**
 * The messages the composed paths (mime-compose.ts) are compared on, byte for byte, with what
 * nodemailer streams: mime-compose.test.ts (the file mailbox) and smtp-mailer.test.ts (SMTP).
 */
export const mailFixtures: [string, SendMailOptions][] = [
  ['a magic-link mail (quoted-printable parts, a long link)', baseMail],
  ['short ASCII lines (7bit parts)', { ...baseMail, text: 'Hi.\n', html: '<p>Hi.</p>' }],
  ['a text part only', { ...baseMail, html: undefined }],
  ['an html part only', { ...baseMail, text: undefined }],
  ['an empty html part', { ...baseMail, html: '' }],
  [
    'accents in subject, body and display names',
    {
      ...baseMail,
      from: 'Équipe Ünïcode <no-reply@localhost>',
      subject: 'Votre lien de connexion à Café ☕',
      text: `Bonjour Zoë,\n\nvoilà : ${link}\n`,
      html: `<p>Bonjour Zoë, <a href="${link}">ouvrir</a> — merci</p>`,
    },
  ],
  [
    'a mostly non-Latin body (base64 parts)',
    {
      ...baseMail,
      subject: 'Ссылка для входа',
      text: `Здравствуйте! Нажмите на ссылку, чтобы войти в приложение. ${'Ещё немного текста. '.repeat(12)}\n${link}\n`,
      html: `<p>${'Привет, мир! '.repeat(20)}</p>`,
    },
  ],
  ['trailing whitespace, tabs, CRLF and a lone CR in the text', { ...baseMail, text: `line with trailing spaces   \nline with a tab\t\r\nlone\rCR\n\n  indented ${'x'.repeat(200)}  ` }],
  ['an internationalised recipient domain and a quoted display name', { ...baseMail, to: '"Lovelace, Ada" <ada@bücher.example>' }],
  ['a non-ASCII local part and an IDN domain (SMTPUTF8)', { ...baseMail, to: 'Zoë <zoë@bücher.example>' }],
  ['lines that start with a dot (SMTP dot-stuffing)', { ...baseMail, text: '.\n..two dots\n.leading\nend.\n.', html: undefined }],
  [
    'several recipients, Cc and Bcc (the envelope lists all, the headers no Bcc)',
    { ...baseMail, to: ['ada@example.test', 'Grace <grace@example.test>'], cc: 'alan@example.test', bcc: 'hidden@example.test' },
  ],
  ['extra headers', { ...baseMail, headers: { 'X-Svc-Template': 'magic_link', 'List-Unsubscribe': '<https://app.example.test/unsubscribe>' } }],
  ['a very long subject', { ...baseMail, subject: `Sign in to ${'Acme Corporation International '.repeat(6)}` }],
  [
    'attachments given as strings (a multipart/mixed tree)',
    {
      ...baseMail,
      attachments: [
        { filename: 'notes.txt', content: 'attached text  \n' },
        { filename: 'data.bin', content: 'bytes\r\nand a lone \r', contentType: 'application/octet-stream', contentTransferEncoding: 'quoted-printable' },
      ],
    },
  ],
];
