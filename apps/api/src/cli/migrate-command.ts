import { pendingMigrations, runMigrations } from '@svc/adapters-typeorm';
import { loadConfig } from '../composition/config';
import { storageOptionsOf } from '../composition/container';
import type { CliIo } from './cli-io';

/** The two things `svc migrate` does to the configured database. */
export interface Migrator {
  /** Names of the migrations not yet run, oldest first; changes nothing. */
  pending(): Promise<string[]>;
  /** Runs them (one transaction, locked on PostgreSQL); answers the names that ran. */
  run(): Promise<string[]>;
}

/**
 * `svc migrate`: runs pending migrations and prints `{ "ran": [...] }` (exit 0).
 * `svc migrate --check`: prints `{ "upToDate", "pending": [...] }` and exits 1 while anything is
 * pending, 0 when the schema is current, so a deploy pipeline can gate on it.
 */
export async function runMigrateCommand(options: { check?: boolean }, io: CliIo, migrator: Migrator): Promise<number> {
  if (options.check) {
    const pending = await migrator.pending();
    io.stdout(`${JSON.stringify({ upToDate: pending.length === 0, pending }, null, 2)}\n`);
    return pending.length === 0 ? 0 : 1;
  }
  const ran = await migrator.run();
  io.stdout(`${JSON.stringify({ ran }, null, 2)}\n`);
  return 0;
}

/**
 * The database of the environment's configuration (DATABASE_URL, SVC_DATABASE_SCHEMA,
 * SVC_DATA_DIR). Reads no secrets and builds no container: migrating needs neither the master
 * key nor the admin token, so a pipeline's migration step can run without them.
 */
export function migratorFromEnvironment(): Migrator {
  // loadConfig demands the secrets only in production; a migration job reads the database
  // settings alone, so it is read as outside production (other values are still validated).
  const config = loadConfig({ ...process.env, NODE_ENV: undefined });
  const where = storageOptionsOf(config);
  return { pending: () => pendingMigrations(where), run: () => runMigrations(where) };
}
