import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { sqliteDriver, sqliteDriverName } from './sqlite-driver';

/** The version of the package installed under `name` next to this adapter. */
const installedVersion = (name: string) => (require(`${name}/package.json`) as { version: string }).version;

describe('the better-sqlite3 module the embedded database opens with', () => {
  it('is 13 (Node-API) from Node 22 on, and 12 on Node 20', () => {
    expect(['20.19.0', '20.20.2', '22.0.0', '24.21.0', '26.1.0'].map(sqliteDriverName)).toEqual([
      'better-sqlite3-node20',
      'better-sqlite3-node20',
      'better-sqlite3',
      'better-sqlite3',
      'better-sqlite3',
    ]);
    expect(installedVersion('better-sqlite3')).toMatch(/^13\./);
    expect(installedVersion('better-sqlite3-node20')).toMatch(/^12\./);
  });

  it('on this Node, is the module its version names, and it opens a database and runs statements', () => {
    const Database = sqliteDriver() as new (path: string) => { prepare(sql: string): { get(): unknown }; close(): void };
    expect(Database).toBe(require(sqliteDriverName(process.versions.node)));
    const db = new Database(':memory:');
    try {
      expect(db.prepare('SELECT 1 + 1 AS two').get()).toEqual({ two: 2 });
    } finally {
      db.close();
    }
  });
});

describe("the module chosen for the images' Node", () => {
  // Statements left to the collector, then a pause: V8 frees them from a task of its own, outside
  // JavaScript, where better-sqlite3 12 compiled for Node 24.19+ aborts the process
  // (`Assertion failed: (env) != nullptr`, within half a second here).
  const SCRIPT = `
    const Database = require(process.argv[1]);
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (a INTEGER)');
    for (let i = 0; i < 50000; i += 1) db.prepare('INSERT INTO t VALUES (?)').run(i);
    let garbage = [];
    for (let i = 0; i < 200000; i += 1) garbage.push({ i, text: 'x'.repeat(20) });
    garbage = null;
    setTimeout(() => console.log('survived'), 3000);`;

  it('survives the collections of an idle process', async () => {
    const { imageNode } = (await import(join(__dirname, '..', '..', '..', 'scripts', 'lib', 'image-node.mjs'))) as { imageNode(repo: string): string };
    const node = imageNode(join(__dirname, '..', '..', '..'));
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim().slice(1);
    const module = require.resolve(sqliteDriverName(version));
    const run = spawnSync(node, ['-e', SCRIPT, module], { encoding: 'utf8', timeout: 60_000 });
    expect({ version: version.split('.')[0], status: run.status, signal: run.signal, out: run.stdout.trim(), err: run.stderr.slice(-500) }).toEqual({
      version: '24',
      status: 0,
      signal: null,
      out: 'survived',
      err: '',
    });
  }, 120_000);
});
