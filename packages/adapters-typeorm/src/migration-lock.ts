import type { DataSource, Migration } from 'typeorm';

/**
 * Runs the pending migrations in one transaction. On PostgreSQL a session-level advisory lock,
 * named after the schema, is held meanwhile: TypeORM itself takes none, so two replicas starting
 * together (or a replica and `svc migrate`) would both run the same migration and one would fail
 * halfway. The second waits, then finds nothing pending. SQLite needs no lock: its migration
 * transaction holds the database's write lock, and other processes wait on busy_timeout.
 *
 * @returns the migrations that ran, oldest first (empty when the schema was current).
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<Migration[]> {
  if (dataSource.options.type !== 'postgres') return dataSource.runMigrations({ transaction: 'all' });
  const key = `svc:migrations:${dataSource.options.schema ?? 'search_path'}`;
  // The lock lives on its own connection; the migrations run on another one from the pool.
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
    try {
      return await dataSource.runMigrations({ transaction: 'all' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
    }
  } finally {
    await runner.release();
  }
}
