import type * as Nodemailer from 'nodemailer';
import type MailComposerClass from 'nodemailer/lib/mail-composer';
import type MimeNode from 'nodemailer/lib/mime-node';

let library: typeof Nodemailer | undefined;

/**
 * nodemailer, required when a mailer first needs a transport rather than when the package is
 * imported: the server imports this package at start, and loading nodemailer then cost about a
 * tenth of its start-up module loading (bench/README.md, "Start-up").
 */
export const createTransport: typeof Nodemailer.createTransport = ((...args: Parameters<typeof Nodemailer.createTransport>) => {
  library ??= require('nodemailer') as typeof Nodemailer;
  return library.createTransport(...args);
}) as typeof Nodemailer.createTransport;

/**
 * The modules of nodemailer's `lib/` the compositions (mime-compose.ts) write with: its own MIME
 * tree, header functions and body encoders, beyond its documented API. Required on first use, as
 * above; whether they still behave as the compositions expect is checked before they are used
 * (`compositionChecked`).
 */
export function requireInternals(): { MailComposer: unknown; MimeNode: unknown; mimeFuncs: unknown; qp: unknown; base64: unknown } {
  return {
    MailComposer: require('nodemailer/lib/mail-composer'),
    MimeNode: require('nodemailer/lib/mime-node'),
    mimeFuncs: require('nodemailer/lib/mime-funcs'),
    qp: require('nodemailer/lib/qp'),
    base64: require('nodemailer/lib/base64'),
  };
}

/** nodemailer's own MIME tree for `mail`, as its transports build it: what the compositions are checked against. */
export function nodemailerTree(mail: Nodemailer.SendMailOptions): MimeNode {
  const MailComposer = require('nodemailer/lib/mail-composer') as typeof MailComposerClass;
  return new MailComposer(mail).compile();
}
