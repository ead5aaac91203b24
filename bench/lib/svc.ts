import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BcryptPasswordHasher } from '../../packages/adapters-crypto/src/bcrypt-password-hasher';
import { RATE_LIMIT_NAMES } from '../../apps/api/src/http/middleware/rate-limit-rules';
import { databaseUrl, SVC_SCHEMA } from './database';
import { ROOT, startChild, type Child } from './processes';

export const PASSWORD = 'correct horse battery staple';
export const ADMIN_TOKEN = `bench-admin-${randomBytes(24).toString('hex')}`;
export const MASTER_KEY = randomBytes(32).toString('hex');

/**
 * Every limit raised far above what a run can send: the bench measures throughput, not 429s. With
 * the default limits (e.g. 10 logins per 15 minutes per address and e-mail) a run would measure
 * the limiter's refusals. Windows of 60 s make the bench's Redis keys expire by themselves.
 */
export const RAISED_LIMITS = JSON.stringify(Object.fromEntries(RATE_LIMIT_NAMES.map((name) => [name, { limit: 1_000_000_000, windowSeconds: 60 }])));

type Storage = { kind: 'postgres'; database: string; redisPrefix: string } | { kind: 'sqlite' };

export interface StartApiOptions {
  storage: Storage;
  cost: number;
  dataDir: string;
  logFile: string;
  nodeFlags?: string[];
  /** Checkout to run the API from (--api-root); default: this one. */
  root?: string | null;
  /** A built server to run instead (processes.ts, `StartOptions.built`); `root` is then not used. */
  built?: { dir: string; node: string };
  /** Extra environment of the API process (a quick A/B of a setting). */
  env?: Record<string, string>;
}

/** The API as `pnpm start` runs it, NODE_ENV=production, on the given storage. */
export function startApi(options: StartApiOptions): Promise<Child> {
  const { storage } = options;
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    SVC_MASTER_KEY: MASTER_KEY,
    SVC_BCRYPT_COST: String(options.cost),
    SVC_RATE_LIMITS: RAISED_LIMITS,
    SVC_DATA_DIR: options.dataDir,
    // Refresh tokens in issue order, as a large tenant runs (bench/README.md, round 22); trees
    // before that setting ignore the variable.
    SVC_REFRESH_TOKEN_ISSUE_TIME: 'true',
    ...(storage.kind === 'postgres'
      ? { DATABASE_URL: databaseUrl(storage.database), SVC_DATABASE_SCHEMA: SVC_SCHEMA, REDIS_URL: 'redis://127.0.0.1:6379', SVC_REDIS_PREFIX: storage.redisPrefix }
      : {}),
    ...options.env,
  };
  return startChild({
    name: `API (${storage.kind})`,
    script: 'apps/api/src/main.ts',
    env,
    logFile: options.logFile,
    nodeFlags: options.nodeFlags,
    cwd: options.root ?? undefined,
    built: options.built,
  });
}

/**
 * The standalone session proxy in front of `api`, with the project's production key. `nodeFlags`
 * (here and in the other proxies' starters): node flags of the proxy's own (cpu-per-request.ts
 * profiles the proxy rather than the API).
 */
export function startProxy(apiUrl: string, apiKey: string, logFile: string, root?: string | null, nodeFlags: string[] = []): Promise<Child> {
  return startChild({
    cwd: root ?? undefined,
    name: 'session proxy',
    script: 'apps/proxy/src/main.ts',
    // The plan is given so branding is answered locally: GET session then costs one /me call.
    env: { NODE_ENV: 'production', SVC_API_KEY: apiKey, SVC_API_URL: apiUrl, SVC_ACCOUNT_PLAN: 'PRO' },
    portVariable: 'PROXY_PORT',
    logFile,
    nodeFlags,
  });
}

/**
 * The minimal session proxy in front of `api` (bench/servers/minimal-proxy.ts): the proxies' floor,
 * always this checkout's (it holds no code of a tree under test).
 */
export function startMinimalProxy(apiUrl: string, apiKey: string, logFile: string, nodeFlags: string[] = []): Promise<Child> {
  return startChild({ name: 'minimal session proxy', script: 'bench/servers/minimal-proxy.ts', env: { NODE_ENV: 'production', SVC_API_KEY: apiKey, SVC_API_URL: apiUrl }, logFile, nodeFlags });
}

/** The proxy's Express router inside a customer's Express app (bench/servers/mounted-proxy.ts). */
export function startMountedProxy(apiUrl: string, apiKey: string, logFile: string, root?: string | null, nodeFlags: string[] = []): Promise<Child> {
  return startChild({
    name: 'mounted session proxy',
    script: 'bench/servers/mounted-proxy.ts',
    env: { NODE_ENV: 'production', SVC_API_KEY: apiKey, SVC_API_URL: apiUrl, ...(root ? { MOUNTED_PROXY_ROOT: root } : {}) },
    logFile,
    nodeFlags,
  });
}

export interface BenchProject {
  id: string;
  apiKey: string;
}

/** A PRO project (no user limit) with magic-link and reset pages, created through the admin API. */
export async function createProject(apiUrl: string): Promise<BenchProject> {
  const response = await fetch(`${apiUrl}/admin/projects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', plan: 'PRO', magicLinkUrl: 'http://localhost:5173/magic-link', passwordResetUrl: 'http://localhost:5173/reset' }),
  });
  const body = (await response.json()) as { data?: { project: { id: string }; apiKeys: { production: string } } };
  if (response.status !== 201 || !body.data) throw new Error(`creating the project failed: ${response.status} ${JSON.stringify(body)}`);
  return { id: body.data.project.id, apiKey: body.data.apiKeys.production };
}

/**
 * Resolves once the API's outbox holds no mail waiting or being sent (`svc_outbox_depth` on
 * /metrics, read live from the database on each scrape), polled every 50 ms; throws after `timeoutMs`.
 */
export async function outboxDrained(apiUrl: string, timeoutMs = 120_000): Promise<void> {
  await until(
    async () => {
      const text = await (await fetch(`${apiUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
      const depth = (status: string) => Number(new RegExp(`^svc_outbox_depth\\{status="${status}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
      return depth('pending') + depth('sending') === 0;
    },
    timeoutMs,
    "the API's outbox",
  );
}

/** Resolves once the minimal handler has delivered every mail it queued (its GET /outbox-depth). */
export async function minimalOutboxDrained(url: string, timeoutMs = 120_000): Promise<void> {
  await until(async () => Number(await (await fetch(`${url}/outbox-depth`)).text()) === 0, timeoutMs, "the minimal handler's outbox");
}

async function until(done: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what} was not drained within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Signs `email` in through the API; the tokens feed /me and the proxy rows. */
export async function logIn(apiUrl: string, apiKey: string, email: string): Promise<{ accessToken: string; refreshToken: string }> {
  const response = await fetch(`${apiUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  const body = (await response.json()) as { data?: { accessToken: string; refreshToken: string } };
  if (!response.ok || !body.data?.accessToken) throw new Error(`login failed: ${response.status} ${JSON.stringify(body)}`);
  return body.data;
}

/** The service's own password hash of PASSWORD (its pre-hash + bcrypt at `cost`), for seeded users. */
export async function servicePasswordHash(cost: number): Promise<string> {
  return new BcryptPasswordHasher({ cost }).hash(PASSWORD);
}

/** Deletes the run's rate-limit keys (they would expire within 60 s anyway). */
export async function clearRedisPrefix(prefix: string): Promise<void> {
  const Redis = createRequire(join(ROOT, 'packages/adapters-redis/package.json'))('ioredis') as new (
    url: string,
  ) => {
    scan(cursor: string, ...args: unknown[]): Promise<[string, string[]]>;
    del(...keys: string[]): Promise<number>;
    quit(): Promise<unknown>;
  };
  const redis = new Redis('redis://127.0.0.1:6379');
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}
