import { randomBytes } from 'node:crypto';
import type { SendMailOptions } from 'nodemailer';
import type * as MimeFuncs from 'nodemailer/lib/mime-funcs';
import type MimeNode from 'nodemailer/lib/mime-node';
import type { MimeNodeEnvelope } from 'nodemailer/lib/mime-node';
import { nodemailerMessage } from './nodemailer-message';
import { encodeWhole, type Encoders, loadEncoders, type MimeNodeInternals, type ParsedAddress } from './mime-encoders';
import { nodemailerTree } from './nodemailer-module';

/**
 * The complete RFC 5322 message for `mail` with LF line breaks, as nodemailer's stream transport
 * with `newline: 'unix'` writes it, composed without streams; or null for a message this does not
 * cover (a body that is not a string: a Buffer, a stream, a file or URL; a raw message; DKIM or
 * other transforms), which the caller then has nodemailer stream.
 *
 * Streaming nodemailer's MIME tree costs a pipeline of transform streams and a `setImmediate` per
 * part, about three quarters of a file mail's composition (bench/README.md, "Mail requests: the
 * file mailbox composes without streams, the claim stops at its limit"), and building the tree
 * (`MailComposer.compile()`, then `buildHeaders()` per node) most of what was left (bench/README.md,
 * "Mail composition: the service's messages written without nodemailer's MIME tree"). So the
 * messages the service sends (`composeDirect`: one From, one To, a subject, text and/or html,
 * a Message-ID, extra headers) are written directly, every value through the nodemailer function
 * that encodes it in the tree; anything else is nodemailer's tree written the way
 * `MimeNode.stream` writes it (`composeTree`). mime-compose.test.ts compares both with what
 * nodemailer streams, byte for byte.
 */
export function composeUnixMessage(mail: SendMailOptions): Buffer | null {
  if (agreed !== true) return null;
  // The stream transport keeps the Bcc header in the file it writes; SMTP leaves it out.
  const composed = compose(mail, { keepBcc: true });
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
export function composeSmtpMessage(mail: SendMailOptions): { raw: Buffer; envelope: MimeNodeEnvelope; messageId: string } | null {
  if (agreed !== true) return null;
  const composed = compose(mail, { keepBcc: false });
  return composed && { raw: Buffer.from(composed.text, 'utf8'), envelope: composed.envelope(), messageId: composed.messageId };
}

/** Whether the compositions agreed with the installed nodemailer (`compositionChecked`); until then, and if not, nodemailer streams every message. */
let agreed: boolean | undefined;
let checking: Promise<boolean> | undefined;

/**
 * Checks once, before the first message, that this writer agrees with the nodemailer installed
 * beside it, and resolves to whether it does. Both compositions call nodemailer's internals (its
 * `lib/` modules and MimeNode's underscore methods), and reproduce what its streams write; the
 * tests compare them byte for byte with the version in the lockfile, but the package depends on a
 * caret range, so an application may install a later nodemailer whose internals moved. So a few
 * samples (each transfer encoding, both paths, non-ASCII names) are composed both ways on the
 * installed copy: if a module or method is missing, or any byte, envelope or Message-ID differs,
 * `composeUnixMessage` and `composeSmtpMessage` answer null from then on, and the mailers have
 * nodemailer stream every message, slower and never wrong. The mailers await this before
 * composing; it costs a few milliseconds, once.
 */
export function compositionChecked(): Promise<boolean> {
  checking ??= agreesWithNodemailer().then(
    (agrees) => (agreed = agrees),
    () => (agreed = false),
  );
  return checking;
}

const SAMPLE_LINK = 'https://app.example.test/auth/magic?token=ml_live_0123456789abcdefghijABCDEFGHIJ-_0123456789abc';
/**
 * The check's messages, built as the mailers build theirs (`nodemailerMessage`), so that the check
 * hands the compositions the same kind of object as every later call; their dates and boundaries
 * are the current and random ones, as in the service's, and are set aside when comparing.
 */
const SAMPLES: SendMailOptions[] = [
  // Quoted-printable parts (a long line) with an extra header: the service's link mails.
  nodemailerMessage('svc <no-reply@localhost>', {
    to: 'ada@example.test',
    subject: 'Your sign-in link',
    text: `Hello,\n\nuse this link to sign in:\n\n${SAMPLE_LINK}\n`,
    html: `<p>Hello,</p><p><a href="${SAMPLE_LINK}">Sign in</a></p>`,
    messageId: '<check-1@svc>',
    headers: { 'x-svc-template': 'magic_link' },
  }),
  // Encoded words in the names and subject, a quoted-printable text and a base64 html part.
  nodemailerMessage('Équipe Ünïcode <no-reply@localhost>', {
    to: 'Zoë <zoe@example.test>',
    subject: 'Votre lien de connexion à Café ☕',
    text: `Bonjour Zoë, voilà : ${SAMPLE_LINK}\n`,
    html: `<p>${'Привет, мир! '.repeat(8)}</p>`,
    messageId: '<check-2@svc>',
  }),
  // One 7bit part: the Date after the transfer encoding.
  nodemailerMessage('no-reply@localhost', { to: 'ada@example.test', subject: 'Hi', text: 'Hi.\n', html: '', messageId: '<check-3@svc>' }),
  // Outside the direct shape (a Cc): nodemailer's tree written without streams.
  { ...nodemailerMessage('svc <no-reply@localhost>', { to: 'ada@example.test', subject: 'Tree', text: 'Hi.\n', html: '<p>Hi.</p>', messageId: '<check-4@svc>' }), cc: 'Bob <bob@example.test>' },
];

/** A message with its Date header's value and its boundaries' random part set aside. */
function unstamped(text: string): string {
  return text.replace(/^Date: .*$/m, 'Date: -').replace(/_NmP-[0-9a-f]{16}-Part_/g, '_NmP--Part_');
}

async function agreesWithNodemailer(): Promise<boolean> {
  for (const sample of SAMPLES) {
    const composed = compose(sample, { keepBcc: false });
    const root = nodemailerTree(sample);
    const reference = (await root.build()).toString('utf8');
    if (!composed || unstamped(composed.text) !== unstamped(reference) || composed.messageId !== root.messageId()) return false;
    if (JSON.stringify(composed.envelope()) !== JSON.stringify(root.getEnvelope())) return false;
  }
  return true;
}

/** A message as `MimeNode.stream` then its LastNewline stage write it (CRLF), with its envelope and Message-ID. */
interface Composed {
  text: string;
  envelope: () => MimeNodeEnvelope;
  messageId: string;
}

function compose(mail: SendMailOptions, options: { keepBcc: boolean }): Composed | null {
  const composed = composeDirect(mail) ?? composeTree(mail, options);
  if (!composed || composed.text.endsWith('\n')) return composed;
  // nodemailer's LastNewline stage.
  return { ...composed, text: composed.text + (composed.text.endsWith('\r') ? '\n' : '\r\n') };
}

/** The options a message in `composeDirect`'s shape may set: nodemailerMessage's, and the fixed date and base boundary of the tests. */
const DIRECT_OPTIONS = new Set(['from', 'to', 'subject', 'text', 'html', 'messageId', 'headers', 'date', 'baseBoundary']);

/**
 * Names (as nodemailer normalises them) an extra header may not have in `composeDirect`'s shape:
 * those `compile()` and `buildHeaders()` set, replace, move, drop or parse themselves, and those
 * the envelope is read from.
 */
const RESERVED_HEADERS = new Set([
  'From',
  'Sender',
  'To',
  'Cc',
  'Bcc',
  'Reply-To',
  'Subject',
  'Message-ID',
  'Date',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'Content-Disposition',
]);

/** The prefix of nodemailer's boundaries (MimeNode's `boundaryPrefix`). */
const BOUNDARY_PREFIX = '--_NmP';

/**
 * The message `MailComposer(mail).compile()` would build, written as `MimeNode.stream` writes it,
 * for the shape of message the service sends: From and To strings, a Message-ID, perhaps a subject,
 * a text and/or an html body (strings), extra headers with string values and names of their own,
 * perhaps a date and base boundary. Null for anything else.
 *
 * The tree nodemailer builds for that shape is one node (a single body) or a multipart/alternative
 * root with a text/plain and a text/html child; what it writes follows from mail-composer/index.js
 * and mime-node/index.js: the root's headers in the order `compile()` sets them and
 * `buildHeaders()` completes them (extra headers, From, To, Subject, Message-ID, then
 * Content-Transfer-Encoding of a single body, Date, MIME-Version, Content-Type last), each value
 * through nodemailer's own encoder (`encodeHeaderValue`, or for the addresses the
 * `_convertAddresses` it calls, which also collects the envelope as `getEnvelope()` does) and
 * folded by its `foldLines`; each body's transfer encoding chosen by `getTransferEncoding()`'s
 * rule with nodemailer's `isPlainText`, `hasLongerLines` and `_getTextEncoding`, and encoded by
 * its encoders; the boundary made as `_generateBoundary()` makes the root's.
 */
function composeDirect(mail: SendMailOptions): Composed | null {
  const given = mail as Record<string, unknown>;
  for (const key in given) if (given[key] !== undefined && !DIRECT_OPTIONS.has(key)) return null;
  const { from, to, subject, text, html, messageId, headers, date, baseBoundary } = mail;
  if (!filled(from) || !filled(to) || !filled(messageId)) return null;
  if (!optionalString(subject) || !optionalString(text) || !optionalString(html)) return null;
  // A given base boundary (the tests') is taken as it is only when MimeNode would not clean it.
  if (baseBoundary !== undefined && (typeof baseBoundary !== 'string' || !/^[\w-]+$/.test(baseBoundary))) return null;
  if (!text && !html) return null;
  // A Date as encodeHeaderValue() recognises one (from any realm), or a string.
  if (date !== undefined && typeof date !== 'string' && Object.prototype.toString.call(date) !== '[object Date]') return null;
  const encoders = loadEncoders();
  const { mimeFuncs, scratch } = encoders;
  const extra = extraHeaders(headers, scratch);
  if (!extra) return null;

  const lines: string[] = [];
  for (const [key, value] of extra) pushHeader(lines, mimeFuncs, key, scratch.encodeHeaderValue(key, value));
  const sender = fromHeader(from, scratch);
  pushHeader(lines, mimeFuncs, 'From', sender.value);
  const recipients: ParsedAddress[] = [];
  pushHeader(lines, mimeFuncs, 'To', scratch._convertAddresses(scratch._parseAddresses(to), recipients));
  if (subject) pushHeader(lines, mimeFuncs, 'Subject', scratch.encodeHeaderValue('Subject', subject));
  pushHeader(lines, mimeFuncs, 'Message-ID', scratch.encodeHeaderValue('Message-ID', messageId));
  // compile() sets a given date with the other headers; buildHeaders() adds the current one after the transfer encoding.
  const dateValue = scratch.encodeHeaderValue('Date', date || new Date().toUTCString().replace(/GMT/, '+0000'));
  if (date) pushHeader(lines, mimeFuncs, 'Date', dateValue);

  const textPart = text ? part('text/plain; charset=utf-8', text, encoders) : undefined;
  const htmlPart = html ? part('text/html; charset=utf-8', html, encoders) : undefined;
  let message: string;
  if (!textPart || !htmlPart) {
    const single = (textPart ?? htmlPart) as Part;
    pushHeader(lines, mimeFuncs, 'Content-Transfer-Encoding', single.encoding);
    if (!date) pushHeader(lines, mimeFuncs, 'Date', dateValue);
    pushHeader(lines, mimeFuncs, 'MIME-Version', '1.0');
    lines.push(single.contentType);
    message = `${lines.join('\r\n')}\r\n\r\n${single.body}`;
  } else {
    if (!date) pushHeader(lines, mimeFuncs, 'Date', dateValue);
    pushHeader(lines, mimeFuncs, 'MIME-Version', '1.0');
    const base = baseBoundary ?? randomHex8();
    const boundary = `${BOUNDARY_PREFIX}-${base}-Part_1`;
    pushHeader(lines, mimeFuncs, 'Content-Type', mimeFuncs.buildHeaderValue({ value: 'multipart/alternative', params: { boundary } }));
    message =
      `${lines.join('\r\n')}\r\n\r\n` +
      `--${boundary}\r\n${textPart.contentType}\r\nContent-Transfer-Encoding: ${textPart.encoding}\r\n\r\n${textPart.body}` +
      `\r\n--${boundary}\r\n${htmlPart.contentType}\r\nContent-Transfer-Encoding: ${htmlPart.encoding}\r\n\r\n${htmlPart.body}` +
      `\r\n--${boundary}--\r\n`;
  }
  const envelope: MimeNodeEnvelope = { from: sender.address, to: recipients.map((r) => r.address as string) };
  return { text: message, envelope: () => envelope, messageId };
}

/** A header line as buildHeaders() writes it: left out when its value is empty, folded at 76. */
function pushHeader(lines: string[], mimeFuncs: typeof MimeFuncs, key: string, value: string): void {
  if (value.trim()) lines.push(mimeFuncs.foldLines(`${key}: ${value}`, 76));
}

/** The From header's value and the envelope's sender (getEnvelope(): the first address), for the last From seen. */
let lastFrom: { from: string; value: string; address: string | false } | undefined;

/** `from` encoded as buildHeaders() encodes it; a mailer sends every mail from one address, so the last one is kept. */
function fromHeader(from: string, scratch: MimeNodeInternals): { value: string; address: string | false } {
  if (lastFrom?.from !== from) {
    const list: ParsedAddress[] = [];
    const value = scratch._convertAddresses(scratch._parseAddresses(from), list);
    lastFrom = { from, value, address: list[0]?.address || false };
  }
  return lastFrom;
}

/** Random bytes for boundaries, drawn 2 KiB at a time rather than 8 bytes per message (a synchronous call each). */
let randomPool = Buffer.alloc(0);
let randomAt = 0;

/** 8 random bytes in hex: the base of a boundary as MimeNode makes it (`randomBytes(8).toString('hex')`). */
function randomHex8(): string {
  if (randomAt + 8 > randomPool.length) {
    randomPool = randomBytes(2048);
    randomAt = 0;
  }
  randomAt += 8;
  return randomPool.toString('hex', randomAt - 8, randomAt);
}

function filled(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function optionalString(value: unknown): value is string | undefined {
  return value === undefined || typeof value === 'string';
}

/** `headers` as `compile()` adds them (`addHeader`: names normalised, in order), or null when they are outside the direct shape. */
function extraHeaders(headers: SendMailOptions['headers'], scratch: MimeNodeInternals): [string, string][] | null {
  if (headers === undefined) return [];
  // addHeader() reads `{ key, value }` as one header, and arrays as lists of them.
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers) || 'key' in headers) return null;
  const extra: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    const key = scratch._normalizeHeaderKey(name);
    if (typeof value !== 'string' || RESERVED_HEADERS.has(key)) return null;
    extra.push([key, value]);
  }
  return extra;
}

/** One text body as its node writes it: its Content-Type line, transfer encoding and encoded body. */
interface Part {
  contentType: string;
  encoding: '7bit' | 'quoted-printable' | 'base64';
  body: string;
}

/** Header lines of a body's Content-Type, as buildHeaders() writes them, by the type compile() gives it. */
const contentTypeLines = new Map<string, string>();

function part(type: string, content: string, encoders: Encoders): Part {
  const { mimeFuncs, scratch } = encoders;
  let contentType = contentTypeLines.get(type);
  if (contentType === undefined) {
    // The text/plain charset buildHeaders() sets for a non-ASCII body is the utf-8 compile() already gave it.
    contentType = mimeFuncs.foldLines(`Content-Type: ${mimeFuncs.buildHeaderValue(mimeFuncs.parseHeaderValue(type, { stripComments: true }))}`, 76);
    contentTypeLines.set(type, contentType);
  }
  // getTransferEncoding() for a text node with a string body (setContent() sets the two flags).
  const plain = mimeFuncs.isPlainText(content);
  const longLines = plain && mimeFuncs.hasLongerLines(content, 76);
  if (plain && !longLines) return { contentType, encoding: '7bit', body: content };
  if (scratch._getTextEncoding(content) === 'Q') return { contentType, encoding: 'quoted-printable', body: encodeWhole(new encoders.qp.Encoder({ binary: false }), content) };
  return { contentType, encoding: 'base64', body: encodeWhole(new encoders.base64.Encoder({}), content) };
}

/** nodemailer's MIME tree for `mail` written as `MimeNode.stream` writes it, or null. */
function composeTree(mail: SendMailOptions, options: { keepBcc: boolean }): Composed | null {
  const { MailComposer } = loadEncoders();
  const root = new MailComposer(mail).compile();
  if (!covered(root)) return null;
  root.keepBcc = options.keepBcc;
  return { text: write(root, loadEncoders()), envelope: () => root.getEnvelope(), messageId: root.messageId() };
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
