import { Transform } from 'class-transformer';
import { Matches, ValidateBy, ValidateIf, type ValidationOptions } from 'class-validator';
import { appUrlMessage, environmentMessage, isAppUrl, isEnvironment } from '@svc/core';

/** Optional, but when present it must not be null (for fields that cannot be cleared). */
export function OptionalNotNull(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined);
}

/** Header and e-mail injection guard: CR/LF never belong in an address. */
export function NoLineBreaks(): PropertyDecorator {
  return Matches(/^[^\r\n]*$/, { message: '$property must not contain line breaks.' });
}

/** Core's app-URL rule (isAppUrl) and its message, as a field check. */
export function IsAppUrl(options?: ValidationOptions): PropertyDecorator {
  const message = appUrlMessage('$property', { each: options?.each });
  return ValidateBy({ name: 'isAppUrl', validator: { validate: isAppUrl, defaultMessage: () => message } }, options);
}

/** An environment (`production` or `sandbox`), with core's message. */
export function IsEnvironment(): PropertyDecorator {
  const message = environmentMessage('$property');
  return ValidateBy({ name: 'isEnvironment', validator: { validate: isEnvironment, defaultMessage: () => message } });
}

/** Surrounding whitespace is not part of an e-mail (core trims it too); strip it before the checks. */
export function Trim(): PropertyDecorator {
  return Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));
}
