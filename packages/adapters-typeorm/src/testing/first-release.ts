import { DataSource, type DataSourceOptions } from 'typeorm';
import { migrations } from '../migrations';
import { sqliteDriver } from '../sqlite-driver';

/** Where a test database lives: a SQLite file, or a schema of a PostgreSQL database. */
export type TestDatabase = { sqlitePath: string } | { databaseUrl: string; schema: string };

/**
 * A DataSource that knows only the first migration: the first release's view of the schema.
 * Upgrade tests build a database with it (`runMigrations`), write rows in that release's columns,
 * then upgrade with today's code; opened again after the upgrade, it stands for a previous
 * release that must still start and serve on the expanded schema.
 */
export function firstReleaseDataSource(where: TestDatabase): DataSource {
  const common = { migrations: [migrations[0]], migrationsTransactionMode: 'all' as const, synchronize: false, logging: false };
  const options: DataSourceOptions =
    'sqlitePath' in where
      ? { type: 'better-sqlite3', driver: sqliteDriver(), database: where.sqlitePath, ...common }
      : { type: 'postgres', url: where.databaseUrl, schema: where.schema, extra: { options: `-c search_path=${where.schema}` }, ...common };
  return new DataSource(options);
}
