/**
 * The better-sqlite3 module the embedded database opens with, chosen by the running Node
 * (docs/decisions.md, "better-sqlite3 by Node version"):
 * - Node 22 and newer: better-sqlite3 13, built on Node-API. Version 12's objects derive from
 *   Node's own `ObjectWrap`, which from Node 24.19 removes a cleanup hook in its destructor and
 *   aborts the process when the garbage collector frees a statement outside JavaScript (a
 *   background collection): compiled against those headers, 12 takes the images' server down
 *   within seconds of its first requests.
 * - Node 20: better-sqlite3 12 (installed as `better-sqlite3-node20`, an optional dependency);
 *   13 needs Node 22 and crashes on 20.
 * TypeORM is handed the module (`driver`), so it never loads `better-sqlite3` by name.
 */
export function sqliteDriver(): unknown {
  const name = sqliteDriverName(process.versions.node);
  if (name === 'better-sqlite3') return require('better-sqlite3');
  try {
    return require('better-sqlite3-node20');
  } catch (error) {
    throw new Error(
      'the embedded database needs better-sqlite3 12 on Node 20 (the optional dependency better-sqlite3-node20), and it is not installed: its build failed or was skipped. Install build tools (python3, make, g++) and reinstall, run Node 22 or newer, or set DATABASE_URL.',
      { cause: error },
    );
  }
}

/** Which of the two installed modules `sqliteDriver` loads on Node `nodeVersion` (`'24.21.0'`). */
export function sqliteDriverName(nodeVersion: string): 'better-sqlite3' | 'better-sqlite3-node20' {
  return Number(nodeVersion.split('.')[0]) >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';
}
