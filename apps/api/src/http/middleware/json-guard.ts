import express, { type RequestHandler } from 'express';
import { AuthError, FORBIDDEN_KEYS } from '@svc/core';
import { MAX_BODY_DEPTH } from '../dto/plain-object';
import { unstorableTextProblem } from '../dto/storable-text';

/** Request bodies above this are refused with 413 (the OpenAPI document). */
export const BODY_LIMIT_BYTES = 64 * 1024;

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * One linear pass over raw JSON text, before JSON.parse, for what JSON.parse accepts but we must
 * not: nesting deeper than `maxDepth` (stopped at the first level too deep, so a 10k-deep body
 * costs nothing and no later recursive walk can overflow the stack), a key that appears twice in
 * one object (JSON.parse silently keeps the last, so two parsers could read different values),
 * and `__proto__`/`constructor`/`prototype` anywhere, also when written with escapes. Not a
 * validator: syntax errors are left to JSON.parse. Returns the first problem, or null.
 */
export function scanJson(text: string, options: { maxDepth: number } = { maxDepth: MAX_BODY_DEPTH }): string | null {
  const stack: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (stack.length >= options.maxDepth) return `The request body is nested deeper than ${options.maxDepth} levels.`;
      stack.push({ keys: c === OPEN_OBJECT ? new Set() : null, path: childPath(stack.at(-1)), index: 0, lastKey: '' });
      expectKey = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      stack.pop();
      expectKey = false;
    } else if (c === COMMA) {
      const top = stack.at(-1);
      if (top && !top.keys) top.index += 1;
      expectKey = top?.keys instanceof Set;
    } else if (c === QUOTE) {
      const end = endOfString(text, i);
      if (end < 0) return null; // unterminated: JSON.parse reports it
      const top = stack.at(-1);
      if (expectKey && top?.keys) {
        const key = decodeKey(text.slice(i, end + 1));
        if (key === null) return null;
        const path = join(top.path, printable(key));
        if (FORBIDDEN_KEYS.has(key)) return `${path} is not an allowed key.`;
        if (top.keys.has(key)) return `${path} appears twice in one object.`;
        top.keys.add(key);
        top.lastKey = printable(key);
      }
      expectKey = false;
      i = end;
    }
  }
  return null;
}

/** An open object (`keys` seen so far) or array (`keys` null, `index` of the current element). */
interface Frame {
  keys: Set<string> | null;
  path: string;
  index: number;
  lastKey: string;
}

/** Path of a container opening inside `parent`, as the messages of validation name fields. */
function childPath(parent: Frame | undefined): string {
  if (!parent) return '';
  return parent.keys ? join(parent.path, parent.lastKey) : `${parent.path}[${parent.index}]`;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** Index of the quote that closes the string opening at `start`, or -1. */
function endOfString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 1;
    else if (c === QUOTE) return i;
  }
  return -1;
}

/** The key as JSON.parse will see it (escapes decoded); null if it is not a valid JSON string. */
function decodeKey(literal: string): string | null {
  if (!literal.includes('\\')) return literal.slice(1, -1);
  try {
    return JSON.parse(literal) as string;
  } catch {
    return null;
  }
}

function printable(key: string): string {
  return key.length > 40 ? `${key.slice(0, 40)}…` : key.replace(/[^\x20-\x7e]/g, '?');
}

/**
 * The JSON body parser, in three steps. {@link refuseDeclaredOversize} answers a declared
 * Content-Length over 64 KiB at once, without reading a byte. express.raw (body-parser) then
 * collects the bytes and stops once a chunked body passes 64 KiB (413 payload_too_large through
 * http-errors.ts). Then {@link parseJsonBody} checks and parses; parsing ourselves, rather than in
 * express.json's `verify` hook, keeps the raw body (which holds passwords) off every error object.
 */
export function jsonBody(): RequestHandler[] {
  return [refuseDeclaredOversize, express.raw({ type: 'application/json', limit: BODY_LIMIT_BYTES }), parseJsonBody];
}

/**
 * 413 for a declared Content-Length over the limit, before the body is read. body-parser would
 * also refuse it, but only after reading the whole body off the socket to keep the connection
 * reusable; closing the connection instead frees it at once (a client announcing 10 MB and
 * trickling them in would otherwise hold it for as long as it likes).
 */
const refuseDeclaredOversize: RequestHandler = (req, res, next) => {
  const declared = Number(req.get('content-length') ?? 0);
  if (!(declared > BODY_LIMIT_BYTES)) return next();
  res.set('Connection', 'close');
  next(new AuthError('payload_too_large', 'The request body is too large (at most 64 KiB).'));
};

/**
 * UTF-8 only (415 otherwise: the scanner reads the bytes as UTF-8), then {@link parseJsonText}.
 * An empty body stays undefined, and a body that is not an object (an array, a scalar) is refused
 * by validation with the same code.
 */
const parseJsonBody: RequestHandler = (req, _res, next) => {
  if (!Buffer.isBuffer(req.body)) return next();
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.get('content-type') ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw new AuthError('unsupported_media_type', 'The request body must be UTF-8 encoded JSON.');
  req.body = parseJsonText(req.body.toString('utf8'));
  next();
};

/**
 * A UTF-8 JSON body's text as the routes get it: {@link scanJson}, then JSON.parse, then no NUL or
 * unpaired surrogate in any key or value (escapes such as `\u0000` decode to them); every refusal
 * is 400 validation_error. Blank text is no body (undefined). Also used by the hot paths that read
 * their own body (hot-path.ts).
 */
export function parseJsonText(text: string): unknown {
  if (text.trim() === '') return undefined;
  const problem = scanJson(text);
  if (problem) throw new AuthError('validation_error', problem);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AuthError('validation_error', 'The request body is not valid JSON.');
  }
  const unstorable = unstorableTextProblem(body, 'The request body');
  if (unstorable) throw new AuthError('validation_error', unstorable);
  return body;
}
