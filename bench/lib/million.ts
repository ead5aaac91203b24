import { Client } from 'pg';
import { SVC_SCHEMA } from './database';

/** How many slices of each row the 1M comparison takes on each side (suite-postgres.ts, millionRows). */
export const MILLION_SLICES = 4;

/**
 * Grows the tenant to `total` users (one session and one refresh token each, like real users
 * with a device), set-based with generate_series in batches of 100k so progress shows. The rows
 * share one bcrypt hash: what is measured is finding a user among many, not hashing them.
 */
export async function seedUsersUpTo(url: string, projectId: string, from: number, total: number, passwordHash: string, log: (line: string) => void): Promise<void> {
  // A connection of its own: one that checked foreign keys while the tables were small keeps
  // those checks' cached plans (sequential scans), and the first batch then took minutes.
  const client = new Client({ connectionString: url, options: `-c search_path=${SVC_SCHEMA}` });
  await client.connect();
  try {
    await seedBatches(client, projectId, from, total, passwordHash, log);
  } finally {
    await client.end();
  }
}

async function seedBatches(client: Client, projectId: string, from: number, total: number, passwordHash: string, log: (line: string) => void): Promise<void> {
  const batch = 100_000;
  const started = Date.now();
  for (let low = from; low <= total; low += batch) {
    const high = Math.min(total, low + batch - 1);
    await client.query(
      `INSERT INTO users (id, project_id, environment, email, password_hash, role, meta, email_verified, banned_at, created_at, last_login_at)
       SELECT gen_random_uuid(), $1, 'production', 'bench-user-' || g || '@example.test', $2, 'user', '{}'::jsonb, false, NULL, now(), NULL
       FROM generate_series($3::int, $4::int) g`,
      [projectId, passwordHash, low, high],
    );
    // Statistics first: the foreign-key checks of the next inserts are planned from them, and a
    // `users` still counted at 1,000 rows gets a sequential scan per checked row.
    await client.query('ANALYZE users');
    await client.query(
      `INSERT INTO sessions (id, project_id, environment, user_id, rotation_key, created_at, revoked_at)
       SELECT gen_random_uuid(), u.project_id, u.environment, u.id, 'seed', now(), NULL
       FROM users u WHERE u.project_id = $1 AND u.environment = 'production'
         AND u.email IN (SELECT 'bench-user-' || g || '@example.test' FROM generate_series($2::int, $3::int) g)`,
      [projectId, low, high],
    );
    await client.query('ANALYZE sessions');
    await client.query(
      `INSERT INTO refresh_tokens (token_hash, project_id, environment, session_id, created_at, expires_at)
       SELECT encode(sha256(s.id::text::bytea), 'hex'), s.project_id, s.environment, s.id, now(), now() + interval '60 days'
       FROM sessions s WHERE s.project_id = $1 AND s.rotation_key = 'seed'
         AND NOT EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.project_id = s.project_id AND t.environment = s.environment AND t.session_id = s.id)`,
      [projectId],
    );
    log(`  seeded users up to ${high.toLocaleString('en')} (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  // Vacuumed and analyzed, as autovacuum would have them on a database that grew over months, and
  // flushed, so the rows after this do not share the disk and cores with writing 3M rows back.
  await client.query('VACUUM (ANALYZE) users, sessions, refresh_tokens');
  await client.query('CHECKPOINT').catch(() => undefined); // needs superuser (or pg_checkpoint)
}
