import { IsDefined, IsEmail, IsString, MaxLength, MinLength } from 'class-validator';
import { NoLineBreaks, Trim } from './checks';

/** RFC 5321 caps a forward path at 256 octets, i.e. an address at 254. */
export const MAX_EMAIL = 254;
/** Long enough for any passphrase; bounds the cost of hashing (every byte counts, DESIGN §4). */
export const MAX_PASSWORD = 1024;

/**
 * Applies decorators as if they were written one above the other in this order. TypeScript runs
 * stacked decorators bottom-up, so they are applied in reverse: class-validator then checks them
 * in the listed order and the error names the first one that fails.
 */
function stacked(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => {
    for (const decorator of [...decorators].reverse()) decorator(target, key);
  };
}

/** A required string field with a length range, named in its messages. */
export function RequiredString(field: string, length: { min: number; max: number; minMessage?: string }): PropertyDecorator {
  return stacked(
    IsDefined({ message: `${field} is required.` }),
    IsString({ message: `${field} must be a string.` }),
    MinLength(length.min, { message: length.minMessage ?? `${field} must not be empty.` }),
    MaxLength(length.max, { message: `${field} must be at most ${length.max} characters.` }),
  );
}

/** The `email` field of every account request: trimmed, one line, at most 254 characters, an address. */
export function AccountEmail(): PropertyDecorator {
  return stacked(
    Trim(),
    IsDefined({ message: 'email is required.' }),
    IsString({ message: 'email must be a string.' }),
    NoLineBreaks(),
    MaxLength(MAX_EMAIL, { message: `email must be at most ${MAX_EMAIL} characters.` }),
    IsEmail({}, { message: 'email must be a valid e-mail address.' }),
  );
}

/** A password being set (sign-up, reset): 8 to 1,024 characters (contract: minimum 8). */
export function NewPassword(field = 'password'): PropertyDecorator {
  return RequiredString(field, { min: 8, max: MAX_PASSWORD, minMessage: `${field} must be at least 8 characters long.` });
}
