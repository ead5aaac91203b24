import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { MigrationExecutor } from 'typeorm';
import { MIGRATION_TIMEOUTS } from './database-timeouts';
import { migrations } from './migrations';
import { runMigrationsLocked } from './migration-lock';
import { createSchemaIfMissing } from './connection-options';
import { kindOf, openDataSource, type OpenStorageOptions } from './open-storage';

// `svc migrate` and `svc migrate --check` (deploy pipelines that migrate before rolling out).
// Both open the database without running anything at open, then either only read the
// migrations table or run what is pending.

/** Names of every bundled migration, oldest first (as recorded in the `migrations` table). */
export function migrationNames(): string[] {
  return migrations.map((Migration) => new Migration().name);
}

/**
 * Names of the bundled migrations the database has not run yet, oldest first. Changes nothing:
 * a missing SQLite file or PostgreSQL schema is not created (everything is pending then).
 * Migrations recorded in the database but unknown to this version (a newer release already
 * migrated) are ignored, as at start.
 */
export async function pendingMigrations(options: OpenStorageOptions): Promise<string[]> {
  if (kindOf(options) === 'sqlite' && (options.sqlitePath === ':memory:' || !existsSync(resolve(options.sqlitePath!)))) return migrationNames();
  const dataSource = await openDataSource({ ...options, migrationsRun: false });
  try {
    const pending = await new MigrationExecutor(dataSource).getPendingMigrations();
    return pending.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Runs the pending migrations (one transaction; under the migration lock on PostgreSQL) and
 * answers the names of those that ran, oldest first; empty when the schema was current.
 */
export async function runMigrations(options: OpenStorageOptions): Promise<string[]> {
  // The one change migrationsRun: false leaves out; the migrations table must live in the schema.
  if (kindOf(options) === 'postgres' && options.schema !== undefined) await createSchemaIfMissing(options.databaseUrl!, options.schema);
  // A schema change may rightly take longer than a request: no statement or lock timeout.
  const dataSource = await openDataSource({ ...options, migrationsRun: false, timeouts: { ...options.timeouts, ...MIGRATION_TIMEOUTS } });
  try {
    // openDataSource with migrationsRun would run them too, but would not say which ran.
    const ran = await runMigrationsLocked(dataSource);
    return ran.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
