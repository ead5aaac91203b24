// Request bodies, read the same way in every runtime: JSON only, at most 64 KiB, objects and
// arrays only at the top (body-parser's `strict`), an empty body is `{}`.

/** Bodies above this are refused with 413, as by the API. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** A body the proxy refuses, with the status and code the API would answer. */
export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    readonly code: 'validation_error' | 'payload_too_large' | 'unsupported_media_type',
    message: string,
  ) {
    super(message);
    this.name = 'BodyError';
  }
}

export const tooLarge = () => new BodyError(413, 'payload_too_large', 'The request body is too large.');

/** `application/json`, with or without parameters. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const semicolon = contentType.indexOf(';');
  return (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase() === 'application/json';
}

/** Refuses what cannot be read before reading it: a declared length above the limit, a compressed body. */
export function checkDeclaredBody(header: (name: string) => string | undefined, limit: number): void {
  const length = header('content-length');
  if (length !== undefined && Number(length) > limit) throw tooLarge();
  const encoding = header('content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') throw new BodyError(415, 'unsupported_media_type', 'Send the request body uncompressed.');
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON's whitespace (RFC 8259) includes tab, LF and CR.
const FIRST_CHARACTER = /^[\x20\x09\x0a\x0d]*(.)/s;

/** Parses a JSON body; throws 400 validation_error for anything but an object or array. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) return {};
  const first = FIRST_CHARACTER.exec(text)?.[1];
  if (first === '{' || first === '[') {
    try {
      return JSON.parse(text);
    } catch {
      // answered below
    }
  }
  throw new BodyError(400, 'validation_error', 'The request body is not valid JSON.');
}

/** Reads a web stream up to `limit` bytes as UTF-8 text; 413 (and the stream cancelled) past it. */
export async function readTextStream(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  if (!stream) return '';
  const reader = stream.getReader();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let size = 0;
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      text += decoder.decode(value, { stream: true });
    }
    return text + decoder.decode();
  } catch (error) {
    if (error instanceof BodyError) throw error;
    throw new BodyError(400, 'validation_error', 'The request body is not valid JSON.');
  } finally {
    reader.releaseLock();
  }
}
