import type { Bench } from './context';
import { builtServerDir, measureMemory, measureStartup } from './built';
import { freePort } from './processes';
import type { RunScope } from './suite-postgres';

/**
 * The built server as the image runs it (`node dist/cli.js start`, no TypeScript loader): time to
 * `/healthz` 200 and idle RSS on the embedded default and on PostgreSQL + Redis (the run's database,
 * already migrated by the PostgreSQL rows), then the leak check on PostgreSQL.
 */
export async function builtSuite(bench: Bench, scope: RunScope): Promise<void> {
  bench.log("\n== the built server (the image's output): start and memory ==");
  const dir = builtServerDir(bench, scope);
  const postgres = { kind: 'postgres', database: scope.database, redisPrefix: scope.redisPrefix } as const;
  if (bench.wants('startup')) {
    bench.results.startup = {
      sqlite: await measureStartup(bench, scope, dir, { kind: 'sqlite' }, freePort),
      postgres: await measureStartup(bench, scope, dir, postgres, freePort),
    };
  }
  if (bench.wants('memory')) bench.results.memory = await measureMemory(bench, scope, dir, postgres, await freePort());
}
