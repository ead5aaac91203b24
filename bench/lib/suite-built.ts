import { builtNode, builtServerDir, measureMemory, measureStartup } from './built';
import type { Bench } from './context';
import { createDatabase, dropDatabase } from './database';
import { freePort } from './processes';
import type { RunScope } from './suite-postgres';

/**
 * The built server as the image runs it (`node dist/cli.js start` on the images' Node major, no
 * TypeScript loader): time to `/healthz` 200 and idle RSS on the embedded default and on
 * PostgreSQL + Redis, then the leak check on PostgreSQL. PostgreSQL gets a database of its own: in
 * the run's database the rows' mails still waiting in the outbox would be delivered by each start,
 * and timed with it.
 */
export async function builtSuite(bench: Bench, scope: RunScope): Promise<void> {
  bench.log("\n== the built server (the image's output): start and memory ==");
  const dir = builtServerDir(bench, scope);
  bench.log(`  on ${builtNode(dir)} (the Node its build was replayed on)`);
  const database = `${scope.database}_built`;
  await createDatabase(database);
  // Also dropped when the run is interrupted (Ctrl-C).
  scope.cleanups.push(() => dropDatabase(database));
  const postgres = { kind: 'postgres', database, redisPrefix: scope.redisPrefix } as const;
  if (bench.wants('startup')) {
    bench.results.startup = {
      sqlite: await measureStartup(bench, scope, dir, { kind: 'sqlite' }, freePort),
      postgres: await measureStartup(bench, scope, dir, postgres, freePort),
    };
  }
  if (bench.wants('memory')) bench.results.memory = await measureMemory(bench, scope, dir, postgres, await freePort());
}
