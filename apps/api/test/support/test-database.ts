import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * A PostgreSQL database of its own for one suite, for faults that act on a whole database
 * (read-only, terminated connections) and so must not touch the shared test database.
 */
export interface TestDatabase {
  name: string;
  /** The server URL with this database's name. */
  url: string;
  /** `default_transaction_read_only` for new sessions of this database; existing ones are ended. */
  setReadOnly(readOnly: boolean): Promise<void>;
  /** Ends every session of this database (as a failover or a restart would). */
  terminateSessions(): Promise<void>;
  /** A client of its own (not through any relay), for holding locks. */
  connect(): Promise<Client>;
  drop(): Promise<void>;
}

export async function createTestDatabase(serverUrl: string): Promise<TestDatabase> {
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ connectionString: serverUrl, connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  await admin((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const terminateSessions = () =>
    admin((client) => client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name])).then(() => undefined);
  return {
    name,
    url: url.toString(),
    setReadOnly: async (readOnly) => {
      await admin((client) => client.query(`ALTER DATABASE "${name}" ${readOnly ? 'SET default_transaction_read_only = on' : 'RESET default_transaction_read_only'}`));
      await terminateSessions();
    },
    terminateSessions,
    connect: async () => {
      const client = new Client({ connectionString: url.toString(), connectionTimeoutMillis: 3000 });
      await client.connect();
      return client;
    },
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
