/**
 * A LIKE pattern matching `text` anywhere, with `%`, `_` and `\` in it taken literally. Use it
 * with `LIKE $n ESCAPE '\'` (the same text on PostgreSQL and SQLite).
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** The SQL condition for {@link containsPattern} on `column` with parameter `$n`. */
export function likeCondition(column: string, parameter: number): string {
  return `${column} LIKE $${parameter} ESCAPE '\\'`;
}
