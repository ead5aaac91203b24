import { isStorableText } from '@svc/core';

/**
 * The first string in `value` (an object key or a value, at any depth) that is not storable text
 * (core's `isStorableText`: a NUL or an unpaired surrogate), as a message naming where it is, or
 * null. The message never quotes the text itself. Depth is already bounded by the JSON scanner
 * (bodies) or the query parser.
 */
export function unstorableTextProblem(value: unknown, what: string): string | null {
  const at = unstorableTextAt(value, '');
  if (at === null) return null;
  const where = at.path || what;
  return at.inKey ? `${where} has a key with a NUL character or an unpaired surrogate.` : `${where} must not contain NUL characters or unpaired surrogates.`;
}

function unstorableTextAt(value: unknown, path: string): { path: string; inKey: boolean } | null {
  if (typeof value === 'string') return isStorableText(value) ? null : { path, inKey: false };
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = unstorableTextAt(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  for (const [key, child] of Object.entries(value)) {
    if (!isStorableText(key)) return { path, inKey: true };
    const found = unstorableTextAt(child, path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return null;
}
