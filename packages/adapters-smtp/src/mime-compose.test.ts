import { createTransport, type SendMailOptions } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { simpleParser } from 'mailparser';
import { composeSmtpMessage, composeUnixMessage, compositionChecked } from './mime-compose';
import { nodemailerMessage } from './nodemailer-message';
import { baseMail, type CompositionPath, mailFixtures } from './testing/mail-fixtures';

/** What nodemailer's stream transport writes for `mail` (the FileMailer's path before mime-compose.ts). */
async function streamed(mail: SendMailOptions): Promise<string> {
  const transport = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return ((await transport.sendMail(mail)).message as Buffer).toString('utf8');
}

/** What nodemailer's SMTP transport streams into DATA for `mail` before its wire stage, with its envelope and Message-ID. */
async function streamedForSmtp(mail: SendMailOptions): Promise<{ raw: string; envelope: object; messageId: string }> {
  const root = new MailComposer(mail).compile();
  return { raw: (await root.build()).toString('utf8'), envelope: root.getEnvelope(), messageId: root.messageId() };
}

/** `mail` composed for the file mailbox, and the path that wrote it: only the tree path compiles nodemailer's MIME tree. */
function composedWithPath(mail: SendMailOptions): { text: string | undefined; path: CompositionPath } {
  const compile = jest.spyOn(MailComposer.prototype, 'compile');
  try {
    const text = composeUnixMessage(mail)?.toString('utf8');
    return { text, path: compile.mock.calls.length > 0 ? 'tree' : 'direct' };
  } finally {
    compile.mockRestore();
  }
}

/** Both compositions of `mail` against nodemailer's streamed output: the file mailbox's and SMTP's (bytes, envelope, Message-ID). */
async function expectSameAsNodemailer(mail: SendMailOptions, path: CompositionPath): Promise<void> {
  const composed = composedWithPath(mail);
  const smtp = composeSmtpMessage(mail);
  expect(composed.path).toBe(path);
  expect(composed.text).toBe(await streamed(mail));
  const reference = await streamedForSmtp(mail);
  expect(smtp?.raw.toString('utf8')).toBe(reference.raw);
  expect(smtp?.envelope).toEqual(reference.envelope);
  expect(smtp?.messageId).toBe(reference.messageId);
}

// The compositions answer null until they were checked against the installed nodemailer, as the mailers await.
beforeAll(async () => {
  expect(await compositionChecked()).toBe(true);
});

describe('composeUnixMessage and composeSmtpMessage (composition without streams)', () => {
  it.each(mailFixtures)('write %s byte for byte as nodemailer streams it', async (_name, mail, path) => {
    await expectSameAsNodemailer(mail, path);
  });

  it("writes the mailers' messages (nodemailerMessage) on the direct path", () => {
    const outgoing = { to: 'ada@example.test', subject: 'Sign in', text: 'Hi.\n', html: '<p>Hi.</p>', messageId: '<m-1@svc>' };
    expect(composedWithPath(nodemailerMessage('svc <no-reply@localhost>', outgoing)).path).toBe('direct');
    expect(composedWithPath(nodemailerMessage('svc <no-reply@localhost>', { ...outgoing, headers: { 'X-Svc-Template': 'magic_link' } })).path).toBe('direct');
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

  it('writes a message with neither body, or with From, To or Message-ID missing, from the tree', async () => {
    await expectSameAsNodemailer({ ...baseMail, text: '', html: undefined }, 'tree');
    expect(composedWithPath({ ...baseMail, messageId: undefined }).path).toBe('tree');
    expect(composedWithPath({ ...baseMail, from: undefined }).path).toBe('tree');
  });
});

describe('without a date or a base boundary, as the service sends its mails', () => {
  const now = new Date('2026-11-26T09:30:15Z');
  beforeEach(() => {
    // Only Date is faked: nodemailer's streams need the real timers.
    jest.useFakeTimers({
      now,
      doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
    });
  });
  afterEach(() => jest.useRealTimers());

  const service = ({ baseBoundary: _b, date: _d, ...mail }: SendMailOptions) => mail;
  /** A boundary's random part (MimeNode: 8 random bytes in hex) replaced, so two messages compare. */
  const unrandom = (text: string) => text.replace(/--_NmP-[0-9a-f]{16}-Part_/g, '--_NmP-random-Part_');

  it.each([
    ['text and html (multipart/alternative)', service(baseMail)],
    ['a text part only (Date after the transfer encoding)', service({ ...baseMail, html: undefined })],
    ['an html part only', service({ ...baseMail, text: undefined })],
  ])('writes %s as nodemailer does, with the current date and a random boundary', async (_name, mail) => {
    const composed = composedWithPath(mail);
    expect(composed.path).toBe('direct');
    expect(composed.text).toContain('\nDate: Thu, 26 Nov 2026 09:30:15 +0000\n');
    expect(unrandom(composed.text!)).toBe(unrandom(await streamed(mail)));
    const smtp = composeSmtpMessage(mail)!;
    const reference = await streamedForSmtp(mail);
    expect(unrandom(smtp.raw.toString('utf8'))).toBe(unrandom(reference.raw));
    expect(smtp.envelope).toEqual(reference.envelope);
  });

  it('draws a new boundary for every message', () => {
    const boundaries = Array.from({ length: 300 }, () => /boundary="(--_NmP-[0-9a-f]{16}-Part_1)"/.exec(composeUnixMessage(service(baseMail))!.toString())?.[1]);
    expect(boundaries.every(Boolean)).toBe(true);
    expect(new Set(boundaries).size).toBe(boundaries.length);
  });
});

/** A small seeded generator (mulberry32), so a failing case can be replayed from its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * (max + 1));
  const pick = <T>(items: readonly T[]): T => items[int(items.length - 1)];
  return { next, int, pick };
}

const POOLS = {
  ascii: [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'],
  punctuation: [...' .,;:!?-_=+/()<>[]@"\'\\#&%*~`|{}^$'],
  space: [' ', ' ', '\t'],
  latin: [...'éèàüößçñÉÅæøœ’–—…'],
  nonLatin: [...'Привет мир こんにちは世界 العربية עברית ελληνικά'],
  astral: ['😀', '🚀', '🔐', '𝔘'],
  control: ['\u0000', '\u0001', '\u0007', '\u001b', '\u007f'],
};
type Pool = keyof typeof POOLS;
/** Mixes of the pools: mostly ASCII, accented Latin, mostly non-Latin, everything. */
const MIXES: [Pool, number][][] = [
  [
    ['ascii', 12],
    ['space', 3],
    ['punctuation', 1],
  ],
  [
    ['ascii', 8],
    ['space', 2],
    ['latin', 2],
    ['punctuation', 1],
  ],
  [
    ['nonLatin', 8],
    ['space', 2],
    ['ascii', 1],
  ],
  [
    ['ascii', 4],
    ['space', 2],
    ['punctuation', 2],
    ['latin', 2],
    ['nonLatin', 2],
    ['astral', 1],
    ['control', 1],
  ],
];

/** Messages in the direct writer's shape with random unicode/ASCII mixes and lengths. */
function randomMail(seed: number): SendMailOptions {
  const r = random(seed);
  const string = (max: number, mix = r.pick(MIXES), without: string[] = []) => {
    const total = mix.reduce((sum, [, weight]) => sum + weight, 0);
    let out = '';
    for (let i = r.int(max); i > 0; i--) {
      let roll = r.next() * total;
      const [pool] = mix.find(([, weight]) => (roll -= weight) < 0) ?? mix[0];
      const char = r.pick(POOLS[pool]);
      if (!without.includes(char)) out += char;
    }
    return out;
  };
  const body = () => {
    const mix = r.pick(MIXES);
    const lines = Array.from({ length: r.int(12) }, () => {
      const line = string(r.pick([10, 40, 76, 77, 120, 300]), mix);
      return `${r.next() < 0.1 ? '.' : ''}${line}${r.next() < 0.2 ? '   ' : ''}`;
    });
    return lines.reduce((text, line, i) => (i === 0 ? line : `${text}${r.pick(['\n', '\n', '\r\n', '\r'])}${line}`), '') + (r.next() < 0.7 ? '\n' : '');
  };
  const address = () => {
    const local = r.next() < 0.8 ? string(12, [['ascii', 1]]) || 'user' : `${string(6, [['ascii', 1]])}ë`;
    return `${local}@${r.pick(['example.test', 'bücher.example', 'mail.example.test', '例え.テスト'])}`;
  };
  const named = (addr: string) => {
    const name = string(30, r.pick(MIXES), ['"', '\\', '\u0000']);
    switch (r.int(3)) {
      case 0:
        return addr;
      case 1:
        return `"${name}" <${addr}>`;
      default:
        return `${
          string(20, [
            ['ascii', 6],
            ['latin', 2],
            ['space', 1],
          ]).trim() || 'Name'
        } <${addr}>`;
    }
  };
  const text = r.next() < 0.85 ? body() : r.pick([undefined, '']);
  const html = r.next() < 0.75 ? `<p>${body()}</p>` : r.pick([undefined, '']);
  const headers: Record<string, string> = {};
  if (r.next() < 0.3) headers[r.pick(['X-Svc-Template', 'x-svc-template', 'List-Unsubscribe', 'X-Note'])] = string(60);
  return {
    baseBoundary: baseMail.baseBoundary,
    date: baseMail.date,
    from: named(r.next() < 0.5 ? 'no-reply@localhost' : address()),
    to: named(address()),
    subject: r.next() < 0.95 ? string(r.pick([20, 80, 200])) : undefined,
    text: text || (html ? text : 'x'),
    html,
    messageId: `<${string(20, [['ascii', 1]])}-${seed}@svc>`,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  };
}

describe('random messages of the service shape', () => {
  const seeds = Array.from({ length: 400 }, (_, i) => 9000 + i);
  it('are written byte for byte as nodemailer writes them, on the direct path (seeds 9000-9399)', async () => {
    for (const seed of seeds) {
      const mail = randomMail(seed);
      try {
        await expectSameAsNodemailer(mail, 'direct');
      } catch (error) {
        throw new Error(`seed ${seed}: ${JSON.stringify(mail)}\n${(error as Error).message}`);
      }
    }
    // 400 messages composed both ways: over jest's default 5 s on a slow machine with other suites
    // beside it (a bound on a hang, not a speed target).
  }, 60_000);
});
