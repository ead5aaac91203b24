// The proxy forwards only the fields each API call takes, picked by name: a browser can never
// add a field (a `userId` on a grant, say) that the proxy did not mean to send. Shapes and
// formats are left to the API, which validates every body and answers validation_error.

type Body = Record<string, unknown>;

function asBody(body: unknown): Body {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Body) : {};
}

/** `body[name]` when it is a string, else undefined. */
export function optionalString(body: unknown, name: string): string | undefined {
  const value = asBody(body)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The named fields of a JSON body (absent ones are left out). */
export function pick(body: unknown, names: readonly string[]): Body {
  const source = asBody(body);
  const picked: Body = {};
  for (const name of names) if (source[name] !== undefined) picked[name] = source[name];
  return picked;
}

/** The proof a sensitive change may carry (`currentPassword`, `totpCode`), as the SDK takes it. */
export function proofOf(ex: { body: unknown }): { currentPassword?: string; totpCode?: string } {
  return pick(ex.body, ['currentPassword', 'totpCode']) as { currentPassword?: string; totpCode?: string };
}
