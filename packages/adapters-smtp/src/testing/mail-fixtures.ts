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
 * How mime-compose.ts writes a message: `direct` for the shape of message the service sends
 * (`composeDirect`), `tree` for anything else (nodemailer's MIME tree, `composeTree`).
 */
export type CompositionPath = 'direct' | 'tree';

/**
 * The messages the composed paths (mime-compose.ts) are compared on, byte for byte, with what
 * nodemailer streams: mime-compose.test.ts (the file mailbox) and smtp-mailer.test.ts (SMTP).
 * Each names the path that writes it.
 */
export const mailFixtures: [string, SendMailOptions, CompositionPath][] = [
  ['a magic-link mail (quoted-printable parts, a long link)', baseMail, 'direct'],
  ['short ASCII lines (7bit parts)', { ...baseMail, text: 'Hi.\n', html: '<p>Hi.</p>' }, 'direct'],
  ['a text part only', { ...baseMail, html: undefined }, 'direct'],
  ['a short ASCII text part only (7bit)', { ...baseMail, text: 'Hi.\n', html: undefined }, 'direct'],
  ['an html part only', { ...baseMail, text: undefined }, 'direct'],
  ['an empty html part', { ...baseMail, html: '' }, 'direct'],
  ['an empty text part beside the html', { ...baseMail, text: '' }, 'direct'],
  [
    'accents in subject, body and display names',
    {
      ...baseMail,
      from: 'Équipe Ünïcode <no-reply@localhost>',
      subject: 'Votre lien de connexion à Café ☕',
      text: `Bonjour Zoë,\n\nvoilà : ${link}\n`,
      html: `<p>Bonjour Zoë, <a href="${link}">ouvrir</a> — merci</p>`,
    },
    'direct',
  ],
  [
    'a mostly non-Latin body (base64 parts)',
    {
      ...baseMail,
      subject: 'Ссылка для входа',
      text: `Здравствуйте! Нажмите на ссылку, чтобы войти в приложение. ${'Ещё немного текста. '.repeat(12)}\n${link}\n`,
      html: `<p>${'Привет, мир! '.repeat(20)}</p>`,
    },
    'direct',
  ],
  ['a non-Latin html part only (base64)', { ...baseMail, text: undefined, html: `<p>${'こんにちは、世界。'.repeat(10)}</p>` }, 'direct'],
  ['a non-ASCII html part only (quoted-printable)', { ...baseMail, text: undefined, html: '<p>Café crème, s’il vous plaît — déjà vu.</p>' }, 'direct'],
  ['trailing whitespace, tabs, CRLF and a lone CR in the text', { ...baseMail, text: `line with trailing spaces   \nline with a tab\t\r\nlone\rCR\n\n  indented ${'x'.repeat(200)}  ` }, 'direct'],
  ['text lines of 76 and 77 characters', { ...baseMail, text: `${'a'.repeat(76)}\n${'b'.repeat(77)}\n`, html: `${'c'.repeat(76)}` }, 'direct'],
  ["'=' signs and encoded-word look-alikes in subject and body", { ...baseMail, subject: 'Price =?utf-8?q?x?= = 5', text: 'a=b\n=?utf-8?q?x?=\n==\n' }, 'direct'],
  ['an internationalised recipient domain and a quoted display name', { ...baseMail, to: '"Lovelace, Ada" <ada@bücher.example>' }, 'direct'],
  ['a non-ASCII local part and an IDN domain (SMTPUTF8)', { ...baseMail, to: 'Zoë <zoë@bücher.example>' }, 'direct'],
  ['a display name that needs quoting, a bare From', { ...baseMail, from: 'no-reply@localhost', to: 'Ada "the Countess" Lovelace (Analytical) <ada@example.test>' }, 'direct'],
  ['several recipients and a group in one To', { ...baseMail, to: 'ada@example.test, "Hopper, Grace" <grace@example.test>, Team: alan@example.test, zoë@bücher.example;' }, 'direct'],
  ['lines that start with a dot (SMTP dot-stuffing)', { ...baseMail, text: '.\n..two dots\n.leading\nend.\n.', html: undefined }, 'direct'],
  ['extra headers', { ...baseMail, headers: { 'X-Svc-Template': 'magic_link', 'List-Unsubscribe': '<https://app.example.test/unsubscribe>' } }, 'direct'],
  [
    'extra headers with non-ASCII and empty values, lower-case names',
    { ...baseMail, headers: { 'x-svc-template': 'magic_link', 'X-Note': 'Café ☕ déjà', 'x-empty': '', 'In-Reply-To': 'earlier@svc' } },
    'direct',
  ],
  ['a very long subject', { ...baseMail, subject: `Sign in to ${'Acme Corporation International '.repeat(6)}` }, 'direct'],
  ['a long non-ASCII subject (several encoded words)', { ...baseMail, subject: `Подтвердите адрес электронной почты для входа в Acme ✉️ ${'ещё '.repeat(12)}` }, 'direct'],
  ['a subject with a control character and a line break', { ...baseMail, subject: 'Sign in\u0007 now\r\nplease' }, 'direct'],
  ['a blank subject (left out)', { ...baseMail, subject: '   ' }, 'direct'],
  ['emoji (astral characters) in subject, names and bodies', { ...baseMail, from: '🔐 Acme <no-reply@localhost>', subject: 'Sign in 🚀🔑', text: `Hello 👋\n${link}\n`, html: '<p>🎉</p>' }, 'direct'],
  ['a date given as a string and a Message-ID without brackets', { ...baseMail, date: 'Thu, 26 Nov 2026 08:00:00 +0000', messageId: 'bare-id@svc' }, 'direct'],
  [
    'several recipients, Cc and Bcc (the envelope lists all, the headers no Bcc)',
    { ...baseMail, to: ['ada@example.test', 'Grace <grace@example.test>'], cc: 'alan@example.test', bcc: 'hidden@example.test' },
    'tree',
  ],
  ['a list of To addresses', { ...baseMail, to: ['ada@example.test', { name: 'Grace', address: 'grace@example.test' }] }, 'tree'],
  ['an extra header that names an address field', { ...baseMail, headers: { 'reply-to': 'support@example.test' } }, 'tree'],
  ['an option outside the shape (replyTo)', { ...baseMail, replyTo: 'support@example.test' }, 'tree'],
  [
    'attachments given as strings (a multipart/mixed tree)',
    {
      ...baseMail,
      attachments: [
        { filename: 'notes.txt', content: 'attached text  \n' },
        { filename: 'data.bin', content: 'bytes\r\nand a lone \r', contentType: 'application/octet-stream', contentTransferEncoding: 'quoted-printable' },
      ],
    },
    'tree',
  ],
];
