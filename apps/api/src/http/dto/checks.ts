import { Transform } from 'class-transformer';
import { Matches, ValidateBy, ValidateIf, type ValidationOptions } from 'class-validator';

/** Optional, but when present it must not be null (for fields that cannot be cleared). */
export function OptionalNotNull(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined);
}

/** Header and e-mail injection guard: CR/LF never belong in an address. */
export function NoLineBreaks(): PropertyDecorator {
  return Matches(/^[^\r\n]*$/, { message: '$property must not contain line breaks.' });
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function parse(value: unknown): URL | null {
  if (typeof value !== 'string' || value.includes('\\')) return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/**
 * A URL the service may send users to (DESIGN §4a): parsed with WHATWG URL, https (http only for
 * localhost), no credentials, no backslashes, no fragment. Allow-lists compare such URLs exactly.
 */
export function isAppUrl(value: unknown): boolean {
  const url = parse(value);
  if (!url || url.username || url.password || url.hash) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname));
}

/** A serialised origin (`https://app.example.com[:port]`), the exact form browsers send in `Origin`. */
export function isOrigin(value: unknown): boolean {
  const url = parse(value);
  return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
}

export function IsAppUrl(options?: ValidationOptions): PropertyDecorator {
  const each = options?.each ? 'each entry of ' : '';
  return ValidateBy(
    { name: 'isAppUrl', validator: { validate: isAppUrl, defaultMessage: () => `${each}$property must be an https URL (http only for localhost) without credentials or fragment.` } },
    options,
  );
}

export function IsOrigin(options?: ValidationOptions): PropertyDecorator {
  const each = options?.each ? 'each entry of ' : '';
  return ValidateBy(
    { name: 'isOrigin', validator: { validate: isOrigin, defaultMessage: () => `${each}$property must be an origin such as https://app.example.com (scheme, host, optional port; no path).` } },
    options,
  );
}

/** Surrounding whitespace is not part of an e-mail (DESIGN §4 trims); strip it before the checks. */
export function Trim(): PropertyDecorator {
  return Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));
}
