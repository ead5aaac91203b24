import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { sqliteDriver } from '../../packages/adapters-typeorm/src/sqlite-driver';

export const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres:test@127.0.0.1:5432/postgres';
/** The schema the API (and the minimal handlers, on the same rows) use inside the bench database. */
export const SVC_SCHEMA = 'svc';

/** The URL of `database` on the bench's PostgreSQL server. */
export function databaseUrl(database: string): string {
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A database of its own, so nothing the bench writes can touch another suite's tables. */
export async function createDatabase(name: string): Promise<void> {
  await withClient(PG_URL, (client) => client.query(`CREATE DATABASE "${name}"`));
}

/** FORCE ends connections a killed child may have left behind. */
export async function dropDatabase(name: string): Promise<void> {
  await withClient(PG_URL, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export const sha256Hex = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const newSecret = () => randomBytes(32).toString('base64url');

/** Where the bench writes rows straight into the service's tables (seeding is not what is measured). */
export interface Seeder {
  /** Users `bench-user-<from..to>@example.test`, all with the same bcrypt hash; returns their ids. */
  insertUsers(projectId: string, from: number, to: number, passwordHash: string): Promise<string[]>;
  /** One session per user id with a fresh first refresh token; returns them with the raw tokens. */
  insertSessions(projectId: string, userIds: string[]): Promise<SeededSession[]>;
  close(): Promise<void>;
}

interface SeededSession {
  sessionId: string;
  userId: string;
  refreshToken: string;
}

export const seedEmail = (n: number) => `bench-user-${n}@example.test`;

/** Seeder on the API's PostgreSQL schema: set-based statements, so 1k rows take milliseconds. */
export async function postgresSeeder(url: string): Promise<Seeder & { client: Client }> {
  const client = new Client({ connectionString: url, options: `-c search_path=${SVC_SCHEMA}` });
  // Dropping the database on Ctrl-C ends this connection: that is not worth a crash report.
  client.on('error', () => undefined);
  await client.connect();
  // Bulk-inserted rows in a fresh database have no planner statistics until autovacuum gets to
  // them; without them PostgreSQL joins from `sessions` by project and filters refresh tokens
  // (15 refreshes/s). A database that grew over time has them, so the seeder analyzes at once.
  const analyze = () => client.query('ANALYZE users; ANALYZE sessions; ANALYZE refresh_tokens');
  let analyzed = false;
  return {
    client,
    async insertUsers(projectId, from, to, passwordHash) {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO users (id, project_id, environment, email, password_hash, role, meta, email_verified, banned_at, created_at, last_login_at)
         SELECT gen_random_uuid(), $1, 'production', 'bench-user-' || g || '@example.test', $2, 'user', '{}'::jsonb, false, NULL, now(), NULL
         FROM generate_series($3::int, $4::int) g RETURNING id`,
        [projectId, passwordHash, from, to],
      );
      await analyze();
      return rows.map((row) => row.id);
    },
    async insertSessions(projectId, userIds) {
      const ids = userIds.map(() => randomUUID());
      const tokens = userIds.map(() => newSecret());
      await client.query(
        `INSERT INTO sessions (id, project_id, environment, user_id, rotation_key, created_at, revoked_at)
         SELECT s, $1, 'production', u, $4, now(), NULL FROM unnest($2::uuid[], $3::uuid[]) AS x(s, u)`,
        [projectId, ids, userIds, newSecret()],
      );
      await client.query(
        `INSERT INTO refresh_tokens (token_hash, project_id, environment, session_id, created_at, expires_at)
         SELECT h, $1, 'production', s, now(), now() + interval '1 day' FROM unnest($2::text[], $3::uuid[]) AS x(h, s)`,
        [projectId, tokens.map(sha256Hex), ids],
      );
      if (!analyzed) await analyze();
      analyzed = true;
      return ids.map((sessionId, i) => ({ sessionId, userId: userIds[i], refreshToken: tokens[i] }));
    },
    close: () => client.end(),
  };
}

interface SqliteDb {
  prepare(sql: string): { run(...params: unknown[]): unknown };
  transaction(work: () => void): () => void;
  pragma(sql: string): unknown;
  close(): void;
}

/** Seeder on the embedded SQLite file, written while the API has it open (WAL allows it). */
export function sqliteSeeder(file: string): Seeder {
  // The module the adapter opens the file with on this Node (two versions are installed).
  const Database = sqliteDriver() as new (path: string) => SqliteDb;
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  const now = () => new Date().toISOString();
  return {
    async insertUsers(projectId, from, to, passwordHash) {
      const insert = db.prepare(
        `INSERT INTO users (id, project_id, environment, email, password_hash, role, meta, email_verified, banned_at, created_at, last_login_at)
         VALUES (?, ?, 'production', ?, ?, 'user', '{}', 0, NULL, ?, NULL)`,
      );
      const ids: string[] = [];
      db.transaction(() => {
        for (let n = from; n <= to; n += 1) {
          const id = randomUUID();
          insert.run(id, projectId, seedEmail(n), passwordHash, now());
          ids.push(id);
        }
      })();
      return ids;
    },
    async insertSessions(projectId, userIds) {
      const session = db.prepare(`INSERT INTO sessions (id, project_id, environment, user_id, rotation_key, created_at, revoked_at) VALUES (?, ?, 'production', ?, ?, ?, NULL)`);
      const token = db.prepare(`INSERT INTO refresh_tokens (token_hash, project_id, environment, session_id, created_at, expires_at) VALUES (?, ?, 'production', ?, ?, ?)`);
      const tokens: SeededSession[] = [];
      const expires = new Date(Date.now() + 86_400_000).toISOString();
      db.transaction(() => {
        for (const userId of userIds) {
          const id = randomUUID();
          const secret = newSecret();
          session.run(id, projectId, userId, newSecret(), now());
          token.run(sha256Hex(secret), projectId, id, now(), expires);
          tokens.push({ sessionId: id, userId, refreshToken: secret });
        }
      })();
      return tokens;
    },
    close: async () => db.close(),
  };
}
