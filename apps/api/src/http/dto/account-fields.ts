import { IsDefined, IsEmail, IsString, MaxLength, MinLength, ValidateBy } from 'class-validator';
import { MAX_EMAIL, passwordLengthProblem } from '@svc/core';
import { NoLineBreaks, Trim } from './checks';

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
export function RequiredString(field: string, length: { min: number; max: number }): PropertyDecorator {
  return stacked(
    IsDefined({ message: `${field} is required.` }),
    IsString({ message: `${field} must be a string.` }),
    MinLength(length.min, { message: `${field} must not be empty.` }),
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

/** A password being set (sign-up, reset): a string, then core's length rule (passwordLengthProblem). */
export function NewPassword(field = 'password'): PropertyDecorator {
  const problemOf = (value: unknown) => (typeof value === 'string' ? passwordLengthProblem(value, field) : `${field} must be a string.`);
  return stacked(
    IsDefined({ message: `${field} is required.` }),
    IsString({ message: `${field} must be a string.` }),
    ValidateBy({ name: 'isNewPassword', validator: { validate: (value) => problemOf(value) === null, defaultMessage: (args) => problemOf(args?.value) ?? '' } }),
  );
}
