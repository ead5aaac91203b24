import type MailComposerClass from 'nodemailer/lib/mail-composer';
import type * as MimeFuncs from 'nodemailer/lib/mime-funcs';
import type MimeNode from 'nodemailer/lib/mime-node';
import { requireInternals } from './nodemailer-module';

// The parts of nodemailer's internals the compositions (mime-compose.ts) write with, typed and
// loaded once: MimeNode's underscore methods, its header functions and its body encoders called
// without their streams. Whether they still behave as expected is checked before use
// (mime-compose.ts, `compositionChecked`).

/** nodemailer's streaming body encoder (qp/index.js, base64/index.js), whose steps are synchronous. */
interface BodyEncoder {
  push(chunk: string | Buffer, encoding?: BufferEncoding): boolean;
  _transform(chunk: Buffer, encoding: 'buffer', done: (error?: Error | null) => void): void;
  _flush(done: (error?: Error | null) => void): void;
}

/** An address as nodemailer's MimeNode parses it (addressparser, then its own normalisation). */
export interface ParsedAddress {
  address?: string;
}

/**
 * The MimeNode methods the direct writer calls that nodemailer's types leave out: the ones its
 * own `encodeHeaderValue`, `getEnvelope` and `getTransferEncoding` call (mime-node/index.js).
 */
export interface MimeNodeInternals extends MimeNode {
  _parseAddresses(value: string): ParsedAddress[];
  _convertAddresses(addresses: ParsedAddress[], uniqueList?: ParsedAddress[]): string;
  _getTextEncoding(value: string): 'Q' | 'B';
  _normalizeHeaderKey(key: string): string;
}

export interface Encoders {
  MailComposer: typeof MailComposerClass;
  mimeFuncs: typeof MimeFuncs;
  /** A node with the options of every node of a message in the direct writer's shape, for its header and text-encoding methods. */
  scratch: MimeNodeInternals;
  qp: { Encoder: new (options: { binary: boolean }) => BodyEncoder };
  base64: { Encoder: new (options: object) => BodyEncoder };
}

let encoders: Encoders | undefined;

/** nodemailer's composer, MIME functions and body encoders, required on first use (nodemailer-module.ts). */
export function loadEncoders(): Encoders {
  if (encoders) return encoders;
  const internals = requireInternals();
  const MimeNodeClass = internals.MimeNode as new (contentType: string | false, options: object) => MimeNodeInternals;
  encoders = {
    MailComposer: internals.MailComposer as typeof MailComposerClass,
    mimeFuncs: internals.mimeFuncs as typeof MimeFuncs,
    // A fixed base boundary: this node is never written, and it need not draw random bytes.
    scratch: new MimeNodeClass(false, { baseBoundary: 'unused' }),
    qp: internals.qp as Encoders['qp'],
    base64: internals.base64 as Encoders['base64'],
  };
  return encoders;
}

/**
 * `body` through one of nodemailer's body encoders as a single chunk: its transform and flush
 * steps called directly (both finish before they return), its output collected instead of queued
 * on a stream, so the bytes are the ones the stream would give.
 */
export function encodeWhole(encoder: BodyEncoder, body: string): string {
  const parts: string[] = [];
  encoder.push = (chunk) => {
    parts.push(typeof chunk === 'string' ? chunk : chunk.toString('latin1'));
    return true;
  };
  encoder._transform(Buffer.from(body, 'utf8'), 'buffer', rethrow);
  encoder._flush(rethrow);
  return parts.join('');
}

function rethrow(error?: Error | null): void {
  if (error) throw error;
}
