import { join } from 'node:path';
import type { Bench } from './context';
import { sqliteSeeder } from './database';
import { dataDirWithMailbox } from './mailbox-folder';
import { apiRows, SEEDED_USERS, stop, track, type RunScope } from './suite-postgres';
import { createProject, servicePasswordHash, startApi } from './svc';

/**
 * The embedded default: no DATABASE_URL and no REDIS_URL, so SQLite in the data folder and
 * in-memory limits, as `pnpm start` runs on a fresh clone. Same rows as PostgreSQL, without sweeps.
 */
export async function embeddedSuite(bench: Bench, scope: RunScope): Promise<void> {
  bench.log('\n== svc API on the embedded default (SQLite file, in-memory limits) ==');
  // The SQLite file stays on the disk (the embedded rows measure a file database); the mails go where the other suite's do.
  const dataDir = dataDirWithMailbox(join(scope.tmp, 'embedded'), join(scope.mailboxes, 'embedded'));
  const api = await track(scope, startApi({ storage: { kind: 'sqlite' }, cost: bench.args.cost, dataDir, logFile: join(scope.tmp, 'api-sqlite.log'), root: bench.args.apiRoot }));
  const seeder = sqliteSeeder(join(dataDir, 'svc.sqlite'));
  try {
    const project = await createProject(api.url);
    const userIds = await seeder.insertUsers(project.id, 1, SEEDED_USERS, await servicePasswordHash(bench.args.cost));
    await apiRows(bench, api, project, seeder, userIds, 'svc · SQLite');
  } finally {
    await seeder.close();
    await stop(scope, api);
  }
}
