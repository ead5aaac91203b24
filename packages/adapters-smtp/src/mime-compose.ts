import type { SendMailOptions } from 'nodemailer';
import type MailComposerClass from 'nodemailer/lib/mail-composer';
import type MimeNode from 'nodemailer/lib/mime-node';

/** nodemailer's streaming body encoder (qp/index.js, base64/index.js), whose steps are synchronous. */
interface BodyEncoder {
  push(chunk: string | Buffer, encoding?: BufferEncoding): boolean;
  _transform(chunk: Buffer, encoding: 'buffer', done: (error?: Error | null) => void): void;
  _flush(done: (error?: Error | null) => void): void;
}

interface Encoders {
  MailComposer: typeof MailComposerClass;
  qp: { Encoder: new (options: { binary: boolean }) => BodyEncoder };
  base64: { Encoder: new (options: object) => BodyEncoder };
}

let encoders: Encoders | undefined;

/** nodemailer's composer and body encoders, required on first use (as nodemailer-module.ts does). */
function load(): Encoders {
  encoders ??= {
    MailComposer: require('nodemailer/lib/mail-composer') as typeof MailComposerClass,
    qp: require('nodemailer/lib/qp') as Encoders['qp'],
    base64: require('nodemailer/lib/base64') as Encoders['base64'],
  };
  return encoders;
}

/**
 * The complete RFC 5322 message for `mail` with LF line breaks, as nodemailer's stream transport
 * with `newline: 'unix'` writes it, composed without streams; or null for a message this does not
 * cover (a body that is not a string: a Buffer, a stream, a file or URL; a raw message; DKIM or
 * other transforms), which the caller then has nodemailer stream.
 *
 * nodemailer builds the MIME tree (`MailComposer.compile()`): addresses, the encoding of header
 * values, the choice of each part's transfer encoding, the boundaries. Streaming that tree costs a
 * pipeline of transform streams and a `setImmediate` per part, about three quarters of a file
 * mail's composition (bench/README.md, "Mail requests: the file mailbox composes without
 * streams, the claim stops at its limit"). Here each node is written as `MimeNode.stream` writes
 * it, its headers by nodemailer's `buildHeaders()` and its body by the same encoders, given the
 * body as one chunk. mime-compose.test.ts compares the two byte for byte.
 */
export function composeUnixMessage(mail: SendMailOptions): Buffer | null {
  // The stream transport keeps the Bcc header in the file it writes; SMTP leaves it out.
  const composed = composeTree(mail, { keepBcc: true });
  // nodemailer's LeUnix stage, which drops every CR byte.
  return composed && Buffer.from(composed.text.replace(/\r/g, ''), 'utf8');
}

/**
 * The complete message for `mail` as nodemailer's SMTP transport streams it into DATA before its
 * own wire stage (CRLF line breaks; a lone CR or LF inside a body left for that stage), with the
 * envelope nodemailer would use (the From address; every To, Cc and Bcc, IDN domains in punycode)
 * and the Message-ID; or null for a message this does not cover (as
 * `composeUnixMessage`). The SMTP mailer hands these to nodemailer as `raw` and `envelope`.
 */
export function composeSmtpMessage(mail: SendMailOptions): { raw: Buffer; envelope: ReturnType<MimeNode['getEnvelope']>; messageId: string } | null {
  const composed = composeTree(mail, { keepBcc: false });
  if (!composed) return null;
  const { root, text } = composed;
  return { raw: Buffer.from(text, 'utf8'), envelope: root.getEnvelope(), messageId: root.messageId() };
}

/** nodemailer's MIME tree for `mail` and its text as `MimeNode.stream` then its LastNewline stage write it, or null. */
function composeTree(mail: SendMailOptions, options: { keepBcc: boolean }): { root: MimeNode; text: string } | null {
  const { MailComposer } = load();
  const root = new MailComposer(mail).compile();
  if (!covered(root)) return null;
  root.keepBcc = options.keepBcc;
  const text = write(root, load());
  // nodemailer's LastNewline stage.
  if (text.endsWith('\n')) return { root, text };
  return { root, text: text + (text.endsWith('\r') ? '\n' : '\r\n') };
}

/** Every node's body is absent or a string, and nothing was set that only the stream applies. */
function covered(node: MimeNode): boolean {
  const internal = node as MimeNode & { _raw?: unknown; _transforms?: unknown[]; _processFuncs?: unknown[] };
  if (internal._raw) return false;
  if ((internal._transforms?.length ?? 0) > 0 || (internal._processFuncs?.length ?? 0) > 0) return false;
  if (node.content !== undefined && typeof node.content !== 'string') return false;
  return node.childNodes.every(covered);
}

/** One node as `MimeNode.stream` writes it: headers, blank line, the encoded body, then its children between boundaries. */
function write(node: MimeNode, encoders: Encoders): string {
  // Before the headers: buildHeaders sets the Content-Transfer-Encoding it picks (and contentType).
  const encoding = node.getTransferEncoding();
  let out = `${node.buildHeaders()}\r\n\r\n`;
  const body = node.content as string | undefined;
  if (body) {
    // As MimeNode.stream: outside of text a lone CR or LF is data (the encoder's `binary`).
    if (encoding === 'quoted-printable') out += encodeWhole(new encoders.qp.Encoder({ binary: !/^text\//i.test(node.contentType ?? '') }), body);
    else if (encoding === 'base64') out += encodeWhole(new encoders.base64.Encoder({}), body);
    else out += body;
  }
  if (node.multipart) {
    node.childNodes.forEach((child, i) => {
      out += `${i > 0 ? '\r\n' : ''}--${String(node.boundary)}\r\n${write(child, encoders)}`;
    });
    out += `\r\n--${String(node.boundary)}--\r\n`;
  }
  return out;
}

/**
 * `body` through one of nodemailer's body encoders as a single chunk: its transform and flush
 * steps called directly (both finish before they return), its output collected instead of queued
 * on a stream, so the bytes are the ones the stream would give.
 */
function encodeWhole(encoder: BodyEncoder, body: string): string {
  const parts: string[] = [];
  encoder.push = (chunk) => {
    parts.push(typeof chunk === 'string' ? chunk : chunk.toString('latin1'));
    return true;
  };
  const rethrow = (error?: Error | null) => {
    if (error) throw error;
  };
  encoder._transform(Buffer.from(body, 'utf8'), 'buffer', rethrow);
  encoder._flush(rethrow);
  return parts.join('');
}
