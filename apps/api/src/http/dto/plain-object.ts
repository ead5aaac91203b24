import { ValidateBy, buildMessage, type ValidationOptions } from 'class-validator';
import { jsonObjectProblem, plainJsonProblem } from '@svc/core';

/** Deeper bodies are refused outright; keeps every walk over request data bounded. */
export const MAX_BODY_DEPTH = 32;

/** Forbidden keys or excessive nesting anywhere in a request body (checked before class-transformer). */
export function findForbiddenKey(body: object): string | null {
  return plainJsonProblem(body, { maxDepth: MAX_BODY_DEPTH });
}

/**
 * A JSON object (not an array, not null) without prototype-reaching keys and at most `maxDepth`
 * levels deep (core's jsonObjectProblem). Used for user meta and WebAuthn responses.
 */
export function IsPlainJsonObject(options: { maxDepth: number }, validationOptions?: ValidationOptions): PropertyDecorator {
  const problemOf = (value: unknown, property: string) => jsonObjectProblem(value, property, options.maxDepth);
  return ValidateBy(
    {
      name: 'isPlainJsonObject',
      validator: {
        validate: (value, args) => problemOf(value, args?.property ?? '') === null,
        defaultMessage: buildMessage((_prefix, args) => problemOf(args?.value, args?.property ?? '') ?? '$property is not valid.'),
      },
    },
    validationOptions,
  );
}
