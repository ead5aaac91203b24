import { Client } from 'pg';
import { AuthError } from '@svc/core';
import { openStorage, type TypeormStorage } from './open-storage';
import { preparedName, preparedStatements, REPLAN_INTERVAL_MS } from './prepared';
import { TOKEN_WITH_HOLDER } from './session-statements';
import { createTestSchema, describeWithPostgres } from './testing';

// The statements marked `prepared` (prepared.ts) are planned once per connection, and PostgreSQL
// may switch each to a generic plan, made without the parameters' values. One made before the
// tables had statistics once read a refresh token through the tenant's indexes where the custom
// plan did not (bench/README.md, round 6). So every marked statement's generic plan must be its
// custom one, on tables that hold rows but have never been analysed, once they are, and once they
// have grown tenfold since. (A custom plan on unanalysed tables may itself read through the
// tenant's indexes; both are planned again once autovacuum analyses the table.) A generic plan
// made on a tiny table is costed for the tiny table: the last suite checks that a connection plans
// it again within REPLAN_INTERVAL_MS as the table grows (prepared.ts, replanIfDue).

const PROJECT = '0b5e4c1e-0000-4000-8000-000000000001';
const USERS = 2000;
/** The id of user `n` of a generate_series, the same in the seed and its growth. */
const user = `('00000000-0000-4000-8000-' || lpad(n::text, 12, '0'))::uuid`;

/** Rows in the tables the marked statements read, with autovacuum off so that nothing analyses them. */
async function seed(client: Client, users = USERS): Promise<void> {
  for (const table of ['projects', 'users', 'sessions', 'refresh_tokens', 'totp_enrollments', 'webhook_endpoints', 'audit_log']) {
    await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  }
  await client.query(
    `INSERT INTO projects (id, name, plan, allowed_origins, default_meta, redirect_urls, access_token_ttl_seconds, refresh_token_ttl_seconds,
       refresh_reuse_grace_seconds, created_at, updated_at)
     VALUES ($1, 'plans', 'FREE', '[]', '{}', '[]', 900, 2592000, 10, now(), now())`,
    [PROJECT],
  );
  await grow(client, 1, users);
  await client.query(
    `INSERT INTO totp_enrollments (project_id, environment, user_id, sealed_secret, status, created_at)
     SELECT $1, 'production', ${user}, 's', 'enabled', now() FROM generate_series(1, ${users} / 10) AS n`,
    [PROJECT],
  );
  await client.query(
    `INSERT INTO audit_log (id, project_id, environment, type, at, actor, data, expires_at)
     SELECT ${user}, $1, 'production', 'user.signed_in', now(), '{}', '{}', now() + interval '90 days' FROM generate_series(1, ${users}) AS n`,
    [PROJECT],
  );
}

/** Users `from` to `to` with a session and two tokens each: the seed's, and a burst of sign-ups between two analyses. */
async function grow(client: Client, from: number, to: number): Promise<void> {
  const range = `generate_series(${from}, ${to}) AS n`;
  await client.query(
    `INSERT INTO users (id, project_id, environment, email, role, meta, email_verified, created_at)
     SELECT ${user}, $1, 'production', 'user' || n || '@example.test', 'user', '{}', true, now() FROM ${range}`,
    [PROJECT],
  );
  await client.query(`INSERT INTO sessions (id, project_id, environment, user_id, rotation_key, created_at) SELECT ${user}, $1, 'production', ${user}, 'k', now() FROM ${range}`, [PROJECT]);
  await client.query(
    `INSERT INTO refresh_tokens (token_hash, project_id, environment, session_id, created_at, expires_at)
     SELECT 't' || n || '-' || g, $1, 'production', ${user}, now(), now() + interval '1 day' FROM ${range}, generate_series(1, 2) AS g`,
    [PROJECT],
  );
}

/** A value of `type` to plan with (a literal: EXPLAIN EXECUTE takes no bound parameters). */
function sample(type: string, position: number): string {
  const values: Record<string, string> = {
    uuid: `'${PROJECT}'`,
    'uuid[]': `ARRAY['${PROJECT}']::uuid[]`,
    text: position === 2 ? `'production'` : `'user7@example.test'`,
    'text[]': position === 2 ? `ARRAY['production']` : `ARRAY['user7@example.test']`,
    'timestamp with time zone': 'now()',
    jsonb: `'{}'::jsonb`,
    boolean: 'true',
    integer: '1',
    bigint: '1',
  };
  const value = values[type];
  if (value === undefined) throw new Error(`no sample value for a parameter of type ${type}`);
  return `${value}::${type}`;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The plan's shape: each node's type, table and index, depth first. */
function shape(node: PlanNode, depth = 0): string[] {
  const here = `${' '.repeat(depth)}${node['Node Type']}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`;
  return [here, ...(node.Plans ?? []).flatMap((child) => shape(child, depth + 1))];
}

async function plansOf(client: Client, text: string): Promise<{ generic: string[]; custom: string[] }> {
  await client.query('DEALLOCATE ALL');
  await client.query(`PREPARE checked AS ${text}`);
  const { rows } = await client.query<{ types: string[] }>("SELECT parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = 'checked'");
  const args = rows[0].types.map((type, i) => sample(type, i + 1));
  const explain = async (mode: string) => {
    await client.query(`SET plan_cache_mode = ${mode}`);
    const { rows: plan } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON, COSTS OFF) EXECUTE checked(${args.join(', ')})`);
    return shape(plan[0]['QUERY PLAN'][0].Plan);
  };
  return { generic: await explain('force_generic_plan'), custom: await explain('force_custom_plan') };
}

describeWithPostgres('prepared statements on PostgreSQL', (url) => {
  let schema: string;
  let drop: () => Promise<void>;
  let storage: TypeormStorage;
  let client: Client;

  beforeAll(async () => {
    ({ schema, drop } = await createTestSchema(url));
    // Opening the storage loads every store, so every marked statement is known below.
    storage = await openStorage({ databaseUrl: url, schema, poolSize: 1 });
    client = new Client({ connectionString: url, options: `-c search_path=${schema}` });
    await client.connect();
    await seed(client);
  });

  afterAll(async () => {
    await client?.end();
    await storage?.close();
    await drop?.();
  });

  it('are the sign-in, refresh and /me statements, and each has a name of its own', () => {
    const texts = preparedStatements();
    expect(texts.length).toBeGreaterThanOrEqual(9);
    expect(texts.some((text) => text.includes('FROM refresh_tokens t'))).toBe(true);
    expect(new Set(texts.map(preparedName)).size).toBe(texts.length);
  });

  it('plan generically as they plan with their values, before the tables have statistics, once they have, and once they have grown since', async () => {
    const { rows } = await client.query<{ analysed: number }>(
      'SELECT count(*)::int AS analysed FROM pg_stat_user_tables WHERE schemaname = $1 AND (last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL)',
      [schema],
    );
    expect(rows[0].analysed).toBe(0);
    for (const phase of ['unanalysed', 'analysed', 'grown since']) {
      if (phase === 'analysed') await client.query('ANALYZE');
      if (phase === 'grown since') await grow(client, USERS + 1, USERS * 10);
      for (const text of preparedStatements()) {
        const { generic, custom } = await plansOf(client, text);
        expect({ phase, text, generic }).toEqual({ phase, text, generic: custom });
      }
    }
  }, 60_000);

  it('go out named on the pool, and not at all with preparedStatements off', async () => {
    const names = async (db: TypeormStorage['database']) => (await db.query<{ name: string }>('SELECT name FROM pg_prepared_statements')).map((row) => row.name);
    await storage.users.findByEmail({ projectId: PROJECT, environment: 'production' }, 'user7@example.test');
    // One connection: the statement above and this read share it.
    expect(await names(storage.database)).toEqual(expect.arrayContaining([expect.stringMatching(/^svc_[0-9a-f]{24}$/)]));
    const unprepared = await openStorage({ databaseUrl: url, schema, poolSize: 1, preparedStatements: false });
    try {
      const found = await unprepared.users.findByEmail({ projectId: PROJECT, environment: 'production' }, 'user7@example.test');
      expect(found?.email).toBe('user7@example.test');
      expect(await names(unprepared.database)).toEqual([]);
    } finally {
      await unprepared.close();
    }
  });

  it('a migration that changes what one answers fails it once as service_unavailable, then it is prepared anew', async () => {
    const scope = { projectId: PROJECT, environment: 'production' } as const;
    expect((await storage.users.findByEmail(scope, 'user8@example.test'))?.role).toBe('user');
    await client.query('ALTER TABLE users ALTER COLUMN role TYPE varchar(100)');
    try {
      const failure = await storage.users.findByEmail(scope, 'user8@example.test').then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(AuthError);
      expect((failure as AuthError).details).toEqual({ dependency: 'database', reason: 'schema_changed' });
      expect((await storage.users.findByEmail(scope, 'user8@example.test'))?.role).toBe('user');
    } finally {
      await client.query('ALTER TABLE users ALTER COLUMN role TYPE text');
    }
  });
});

describeWithPostgres('prepared statements on a table that grows', (url) => {
  let drop: () => Promise<void>;
  let storage: TypeormStorage;
  let client: Client;
  const scope = { projectId: PROJECT, environment: 'production' } as const;

  beforeAll(async () => {
    const created = await createTestSchema(url);
    drop = created.drop;
    storage = await openStorage({ databaseUrl: url, schema: created.schema, poolSize: 1 });
    client = new Client({ connectionString: url, options: `-c search_path=${created.schema}` });
    await client.connect();
    await seed(client, 3);
    await client.query('ANALYZE');
  });

  afterAll(async () => {
    await client?.end();
    await storage?.close();
    await drop?.();
  });

  /** The plan the pool's one connection holds for the refresh token's read. */
  async function heldPlan(): Promise<string> {
    const name = preparedName(TOKEN_WITH_HOLDER);
    const rows = await storage.database.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${name}('${PROJECT}'::uuid, 'production', 't1-1')`);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  }

  it('is planned again within a second, without waiting for the table to be analysed', async () => {
    // Past the five custom plans: the connection now holds a generic plan for three tokens.
    for (let i = 0; i < 8; i++) expect((await storage.sessions.findRefreshTokenWithHolder(scope, 't1-1'))?.user.id).toBeDefined();
    expect(await heldPlan()).toMatch(/Seq Scan on refresh_tokens/);
    await client.query(
      `INSERT INTO refresh_tokens (token_hash, project_id, environment, session_id, created_at, expires_at)
       SELECT 'grown-' || n, $1, 'production', '00000000-0000-4000-8000-000000000001', now(), now() + interval '1 day' FROM generate_series(1, 50000) AS n`,
      [PROJECT],
    );
    // Kept as it was for the tiny table until the interval has passed: this is what it guards.
    expect(await heldPlan()).toMatch(/Seq Scan on refresh_tokens/);
    await new Promise((resolve) => setTimeout(resolve, REPLAN_INTERVAL_MS + 100));
    for (let i = 0; i < 6; i++) expect((await storage.sessions.findRefreshTokenWithHolder(scope, 't1-1'))?.user.id).toBeDefined();
    const plan = await heldPlan();
    expect(plan).toMatch(/Index Scan using refresh_tokens_pkey on refresh_tokens/);
    expect(plan).not.toMatch(/Seq Scan on refresh_tokens/);
  });
});
