/** Keys that reach prototypes when a parsed object is copied or merged. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

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

/**
 * Why `value`, the `field` of a request, is not a JSON object (not an array, not null) without
 * prototype-reaching keys and at most `maxDepth` levels deep (the object itself is level 1); or null.
 */
export function jsonObjectProblem(value: unknown, field: string, maxDepth: number): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${field} must be a JSON object.`;
  return plainJsonProblem(value, { maxDepth, path: field });
}
