import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import type { SendMailOptions } from 'nodemailer';
import type { FileMailer as FileMailerClass } from './file-mailer';
import type * as MimeCompose from './mime-compose';
import type * as NodemailerModule from './nodemailer-module';
import type * as SmtpSend from './smtp-send';
import { mailFixtures } from './testing/mail-fixtures';
import { smtpTransportFixture } from './testing/smtp-transport';

// The package depends on a caret range of nodemailer, and its compositions (mime-compose.ts) write
// with nodemailer's internals (nodemailer-module.ts, `requireInternals`). These tests stand in for a
// later nodemailer whose internals moved: in a module registry of their own, the compositions are
// handed altered internals, while nodemailer itself (its transports, and the tree the check compares
// with) is the one installed, as after a real upgrade.

type Internals = ReturnType<typeof NodemailerModule.requireInternals>;

interface Loaded {
  compose: typeof MimeCompose;
  send: typeof SmtpSend;
  FileMailer: typeof FileMailerClass;
}

/** The compositions and both mailers' sending, loaded fresh, the compositions given `alter`ed internals (null: as installed). */
async function withNodemailer(alter: ((internals: Internals) => Internals) | null, use: (loaded: Loaded) => Promise<void>): Promise<void> {
  await jest.isolateModulesAsync(async () => {
    if (alter) {
      jest.doMock('./nodemailer-module', () => {
        const actual = jest.requireActual('./nodemailer-module') as typeof NodemailerModule;
        return { ...actual, requireInternals: () => alter(actual.requireInternals()) };
      });
    }
    await use({ compose: require('./mime-compose'), send: require('./smtp-send'), FileMailer: require('./file-mailer').FileMailer });
  });
}

/** A nodemailer that no longer exports one of the `lib/` modules the compositions read. */
const withoutQpExport = (): Internals => {
  throw new Error('Package subpath \'./lib/qp\' is not defined by "exports" in node_modules/nodemailer/package.json');
};

/** A nodemailer whose header folding is no longer the function the compositions call (they would fold at 40). */
const withOtherFolding = (internals: Internals): Internals => {
  const mimeFuncs = internals.mimeFuncs as { foldLines: (text: string, width: number) => string };
  return { ...internals, mimeFuncs: { ...mimeFuncs, foldLines: (text: string) => mimeFuncs.foldLines(text, 40) } };
};

/** A nodemailer without one of MimeNode's underscore methods the compositions call (renamed). */
const withRenamedMethod = (internals: Internals): Internals => {
  const Actual = internals.MimeNode as new (...args: unknown[]) => object;
  class Renamed extends Actual {}
  (Renamed.prototype as unknown as Record<string, unknown>)._getTextEncoding = undefined;
  return { ...internals, MimeNode: Renamed };
};

const cases: [string, (internals: Internals) => Internals][] = [
  ['a lib/ module no longer exported', withoutQpExport],
  ['headers folded differently', withOtherFolding],
  ['an underscore method gone', withRenamedMethod],
];

describe('compositionChecked: the compositions against the installed nodemailer', () => {
  it('agrees with the nodemailer installed here, and the compositions then write', async () => {
    await withNodemailer(null, async ({ compose }) => {
      const [, mail] = mailFixtures[0];
      // Before the check, every message is left to nodemailer.
      expect(compose.composeUnixMessage(mail)).toBeNull();
      expect(await compose.compositionChecked()).toBe(true);
      expect(compose.composeUnixMessage(mail)).not.toBeNull();
      expect(compose.composeSmtpMessage(mail)).not.toBeNull();
    });
  });

  it.each(cases)('with %s, disagrees, and every message is left to nodemailer', async (_name, alter) => {
    await withNodemailer(alter, async ({ compose }) => {
      expect(await compose.compositionChecked()).toBe(false);
      for (const [, mail] of mailFixtures) {
        expect(compose.composeUnixMessage(mail)).toBeNull();
        expect(compose.composeSmtpMessage(mail)).toBeNull();
      }
    });
  });
});

describe('the mailers with a nodemailer the compositions disagree with', () => {
  const smtp = smtpTransportFixture();
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-mailbox-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each(cases)('with %s, SMTP delivers the bytes nodemailer streams', async (_name, alter) => {
    await withNodemailer(alter, async ({ send }) => {
      const [, mail] = mailFixtures[0];
      const transport = smtp.transport();
      const handed = jest.spyOn(transport, 'sendMail');
      try {
        const streamed = await smtp.delivered(() => transport.sendMail(mail));
        const sent = await smtp.delivered(() => send.sendOverSmtp(transport, mail));
        // The parts, not a finished message: nodemailer composed it.
        expect((handed.mock.calls[1][0] as SendMailOptions).raw).toBeUndefined();
        expect(sent.bytes.equals(streamed.bytes)).toBe(true);
        expect(sent.envelopeTo).toEqual(streamed.envelopeTo);
      } finally {
        handed.mockRestore();
      }
    });
  });

  it.each(cases)('with %s, the file mailbox writes the mail whole', async (_name, alter) => {
    await withNodemailer(alter, async ({ FileMailer }) => {
      const mailer = new FileMailer(join(dir, 'mail'), { info: () => undefined });
      const messageId = '<0b6c1f6e-4f7e-4a53-9b0c-2d1f3e4a5b6c@svc>';
      const text = 'Bonjour Zoë, voilà : https://app.example.test/magic?token=t1&project=p1\n';
      await mailer.send({ to: 'Zoë <zoe@example.test>', subject: 'Votre lien de connexion ☕', text, html: '<p>Привет, мир!</p>', messageId });
      const [file] = readdirSync(join(dir, 'mail'));
      const parsed = await simpleParser(readFileSync(join(dir, 'mail', file)));
      expect(parsed.messageId).toBe(messageId);
      expect(parsed.subject).toBe('Votre lien de connexion ☕');
      expect(parsed.text).toBe(text);
      expect(parsed.html).toBe('<p>Привет, мир!</p>');
      expect(parsed.to).toMatchObject({ value: [{ address: 'zoe@example.test', name: 'Zoë' }] });
    });
  });
});
