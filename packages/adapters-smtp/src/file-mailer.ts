import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import { createTransport } from './nodemailer-module';
import { maskEmail, type Mailer, type OutgoingMail } from '@svc/core';
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

  constructor(
    private readonly dir: string,
    private readonly logger: MailLogger,
    private readonly options: { from: string; showLinks?: boolean } = { from: 'svc <no-reply@localhost>' },
  ) {}

  async send(message: OutgoingMail): Promise<{ messageId: string }> {
    // nodemailer builds the complete MIME message (headers, text and html parts) into a buffer;
    // made on the first mail, so a server that sends none never loads it.
    this.composer ??= createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    const info = await this.composer.sendMail(nodemailerMessage(this.options.from, message));
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = join(this.dir, `${fileNameOf(message.messageId)}.eml`);
    await writeFile(file, info.message as Buffer, { mode: 0o600 });
    await chmod(file, 0o600);
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
}

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
