import { writeFile as callbackWriteFile } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import { createTransport } from './nodemailer-module';
import { maskEmail, type Mailer, type OutgoingMail } from '@svc/core';
import { composeUnixMessage, compositionChecked } from './mime-compose';
import { nodemailerMessage } from './nodemailer-message';

/** What the file mailbox logs with; pino's logger fits. */
export interface MailLogger {
  info(details: object, message: string): void;
}

/**
 * The embedded default's Mailer (docs/operating.md#the-e-mail-outbox): no SMTP server, each mail becomes an RFC 5322
 * `.eml` file in `dir` (e.g. `$SVC_DATA_DIR/mail`), named after its Message-ID so a re-send of
 * one outbox mail overwrites its own file. The files carry live links, so they are private to
 * the owner (0600 in a 0700 folder); the log line names the file, never the link's token,
 * unless `showLinks` (development only: the composition root sets it outside production). Then
 * the links are also logged, and written to `<file>.links.txt`, each on one line: the `.eml` is
 * quoted-printable, where a long link is cut into pieces that break when copied.
 */
export class FileMailer implements Mailer {
  private composer: Transporter | undefined;
  /** Set once the folder was made (or found); a mail that finds it gone makes it again. */
  private folderReady = false;

  constructor(
    private readonly dir: string,
    private readonly logger: MailLogger,
    private readonly options: { from: string; showLinks?: boolean } = { from: 'svc <no-reply@localhost>' },
  ) {}

  async send(message: OutgoingMail): Promise<{ messageId: string }> {
    const file = join(this.dir, `${fileNameOf(message.messageId)}.eml`);
    await this.writePrivate(file, await this.compose(message));
    const summary = { file, to: maskEmail(message.to), subject: message.subject };
    const links = this.options.showLinks ? linksOf(message.text) : [];
    if (links.length === 0) {
      this.logger.info(summary, 'mail written to the file mailbox (open the file for its link)');
      return { messageId: message.messageId };
    }
    await writeFile(`${file}.links.txt`, `${links.join('\n')}\n`, { mode: 0o600 });
    this.logger.info({ ...summary, links }, `mail written to the file mailbox; its link (development only): ${links.join(' ')}`);
    return { messageId: message.messageId };
  }

  /**
   * The complete MIME message (headers, text and html parts) with LF line breaks. nodemailer's
   * MIME tree written without streams (mime-compose.ts); a message that path does not cover, or
   * every message when the installed nodemailer disagrees with it (`compositionChecked`), is
   * streamed by nodemailer's stream transport, made on the first such mail.
   */
  private async compose(message: OutgoingMail): Promise<Buffer> {
    const options = nodemailerMessage(this.options.from, message);
    await compositionChecked();
    const composed = composeUnixMessage(options);
    if (composed) return composed;
    this.composer ??= createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    return (await this.composer.sendMail(options)).message as Buffer;
  }

  private async writePrivate(file: string, data: Buffer): Promise<void> {
    if (!this.folderReady) {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      this.folderReady = true;
    }
    try {
      await writePrivateFile(file, data);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writePrivateFile(file, data);
    }
  }
}

/**
 * Writes `data` to `file`, readable by the owner only. A new file is created with mode 0600
 * (exclusive create: open, write, close); a re-sent mail's existing file is overwritten and
 * its mode set again. The folder is made on the first mail, not for every one: a mail sent
 * after it was removed makes it again.
 */
async function writePrivateFile(file: string, data: Buffer): Promise<void> {
  try {
    await writeNewFile(file, data, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    await writeFile(file, data, { mode: 0o600 });
    await chmod(file, 0o600);
  }
}

/**
 * `fs.writeFile` with a callback, as a promise: the same open, write and close, without the
 * `FileHandle` that `fs/promises` makes and tracks for each file. The event loop spends about half
 * the CPU per file this way (8-15 against 18-20 µs per 1.5 KB file, bench/README.md, round 9),
 * and the file mailbox writes one per mail.
 */
const writeNewFile = promisify(callbackWriteFile);

/** The http(s) links of a mail's text part, in order, each once. */
function linksOf(text: string): string[] {
  return [...new Set(text.match(/https?:\/\/[^\s<>"']+/g) ?? [])];
}

/** `<id@host>` -> `id@host` with anything outside a safe file-name alphabet replaced. */
function fileNameOf(messageId: string): string {
  return (
    messageId
      .replace(/^<|>$/g, '')
      .replace(/[^A-Za-z0-9@._-]/g, '_')
      .slice(0, 200) || 'mail'
  );
}
