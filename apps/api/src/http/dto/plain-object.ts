import { ValidateBy, buildMessage, type ValidationOptions } from 'class-validator';

/** Keys that reach prototypes when a parsed object is copied or merged. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Deeper bodies are refused outright; keeps every walk over request data bounded. */
export const MAX_BODY_DEPTH = 32;

/**
 * The first problem with a parsed JSON value, or null: a forbidden key anywhere (reported with its
 * path) or nesting deeper than `maxDepth` (the outermost object or array is level 1).
 */
export function plainJsonProblem(value: unknown, options: { maxDepth: number; path?: string }): string | null {
  const root = options.path ?? '';
  const tooDeep = (at: string) => `${root || 'The request body'} is nested deeper than ${options.maxDepth} levels (at ${at}).`;
  return walk(value, root, 1, options.maxDepth, tooDeep);
}

function walk(value: unknown, path: string, depth: number, maxDepth: number, tooDeep: (at: string) => string): string | null {
  if (typeof value !== 'object' || value === null) return null;
  if (depth > maxDepth) return tooDeep(path);
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? (Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`) : key;
    if (!Array.isArray(value) && FORBIDDEN_KEYS.has(key)) return `${childPath} is not an allowed key.`;
    const problem = walk(child, childPath, depth + 1, maxDepth, tooDeep);
    if (problem) return problem;
  }
  return null;
}

/** Forbidden keys or excessive nesting anywhere in a request body (checked before class-transformer). */
export function findForbiddenKey(body: object): string | null {
  return plainJsonProblem(body, { maxDepth: MAX_BODY_DEPTH });
}

/**
 * A JSON object (not an array, not null) without prototype-reaching keys and at most `maxDepth`
 * levels deep (the object itself is level 1). Used for user meta and a project's default meta.
 */
export function IsPlainJsonObject(options: { maxDepth: number }, validationOptions?: ValidationOptions): PropertyDecorator {
  const problemOf = (value: unknown, property: string) =>
    typeof value !== 'object' || value === null || Array.isArray(value)
      ? `${property} must be a JSON object.`
      : plainJsonProblem(value, { maxDepth: options.maxDepth, path: property });
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
