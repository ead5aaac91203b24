// The peer: better-auth (e-mail and password) mounted in Express on the same PostgreSQL, in a schema
// of its own, as its documentation sets it up. Started as a child by bench/run.ts; the bench only
// measures it. Rate limiting is off, as the bench raises the API's limits too.
import express from 'express';
import { Pool } from 'pg';

async function main(): Promise<void> {
  const env = (name: string) => process.env[name] ?? fail(`${name} is required`);
  // better-auth is ESM-only; this file is CommonJS like the rest of the workspace.
  const { betterAuth } = await import('better-auth');
  const { toNodeHandler } = await import('better-auth/node');
  const { getMigrations } = await import('better-auth/db/migration');
  const schema = env('PEER_SCHEMA');
  const setup = new Pool({ connectionString: env('DATABASE_URL'), max: 1 });
  await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await setup.end();
  const port = Number(env('PORT'));
  const options = {
    // Same pool size as the API's (pg's default, 10).
    database: new Pool({ connectionString: env('DATABASE_URL'), options: `-c search_path=${schema}`, max: 10 }),
    baseURL: `http://127.0.0.1:${port}`,
    secret: env('PEER_SECRET'),
    emailAndPassword: { enabled: true },
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
  };
  const { runMigrations } = await getMigrations(options);
  await runMigrations();
  const auth = betterAuth(options);
  const app = express();
  app.get('/healthz', (_req, res) => void res.json({ ok: true }));
  // better-auth reads the raw body itself: mounted before any body parser, per its Express guide.
  app.all('/api/auth/{*splat}', toNodeHandler(auth));
  const server = app.listen(port, '127.0.0.1');
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

function fail(message: string): never {
  throw new Error(message);
}

main().catch((error: unknown) => {
  process.stderr.write(`better-auth peer failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
