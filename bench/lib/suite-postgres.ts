import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bench, Ceiling, RowRecord, WorkloadFactory } from './context';
import { createDatabase, databaseUrl, dropDatabase, postgresSeeder, SVC_SCHEMA, type Seeder } from './database';
import { medianRows } from './median-rows';
import { accessClaims, signJwt } from './jwt';
import { runConcurrently, settle } from './load';
import { MILLION_SLICES, seedUsersUpTo } from './million';
import { turns } from './turns';
import { dataDirWithMailbox } from './mailbox-folder';
import { loginAloneInTurn } from './login-alone';
import { measureUserSearch } from './user-search';
import { startChild, type Child } from './processes';
import * as rows from './rows';
import { createProject, logIn, minimalOutboxDrained, outboxDrained, servicePasswordHash, startApi, startMinimalProxy, startMountedProxy, startProxy, type BenchProject } from './svc';

export const SEEDED_USERS = 1000;
/** The ceiling of magic-link and password-reset requests: a user lookup and one insert transaction. */
/** The mail rows' ceiling: the request's transaction and the mail's delivery, as the API's row does both. */
const MAIL_CEILING = 'minimal mail txn + delivery';
/** The request's transaction alone (the ceiling of runs before 2026-11-26; shown beside the other). */
const MAIL_REQUEST_ONLY = 'minimal mail txn';

/** What the run shares between sections: scratch folder, database, children to stop on failure. */
export interface RunScope {
  tmp: string;
  /** Where the file mailboxes go (bench/lib/mailbox-folder.ts): the API's `mail` folder and the minimal handler's. */
  mailboxes: string;
  database: string;
  redisPrefix: string;
  children: Set<Child>;
  /** Run at the end, after the children stop (e.g. removing a built server's folder). */
  cleanups: Array<() => unknown>;
}

export async function track(scope: RunScope, start: Promise<Child>): Promise<Child> {
  const child = await start;
  scope.children.add(child);
  return child;
}

export async function stop(scope: RunScope, child: Child): Promise<void> {
  await child.stop();
  scope.children.delete(child);
}

/** The minimal handlers (the ceilings of refresh and /me), then the API on PostgreSQL + Redis. */
export async function postgresSuite(bench: Bench, scope: RunScope): Promise<void> {
  const { args } = bench;
  bench.log(`\n== svc API on PostgreSQL + Redis (bcrypt cost ${args.cost}, ${SEEDED_USERS.toLocaleString('en')} users) ==`);
  const api = await track(
    scope,
    startApi({
      storage: { kind: 'postgres', database: scope.database, redisPrefix: scope.redisPrefix },
      cost: args.cost,
      dataDir: dataDirWithMailbox(join(scope.tmp, 'pg-data'), join(scope.mailboxes, 'pg')),
      logFile: join(scope.tmp, 'api-pg.log'),
      root: args.apiRoot,
    }),
  );
  const project = await createProject(api.url);
  const seeder = await postgresSeeder(databaseUrl(scope.database));
  const passwordHash = await servicePasswordHash(args.cost);
  const userIds = await seeder.insertUsers(project.id, 1, SEEDED_USERS, passwordHash);
  // The minimal handlers stay up through this part: their series first, then each ceiling taken
  // in turn with the row divided by it, then their series again.
  const minimal = bench.wants('minimal') ? await startMinimal(scope, bench, project, seeder, userIds) : null;
  try {
    if (minimal) await minimalRows(bench, minimal);
    await apiRows(bench, api, project, seeder, userIds, 'svc · PostgreSQL', minimal);
    if (bench.wants('proxy')) await proxyRow(bench, scope, api, project);
    if (minimal) await minimalRows(bench, minimal, { again: true });
    if (args.million) await millionRows(bench, scope, passwordHash);
  } finally {
    if (minimal) await stop(scope, minimal.child);
    await seeder.close();
    await stop(scope, api);
  }
}

/** The minimal handlers' server (bench/servers/minimal-server.ts) and the workloads of the ceilings the API's rows are divided by. */
interface Minimal {
  child: Child;
  me: WorkloadFactory;
  refresh: WorkloadFactory;
  /** A mail request and its delivery (the mail rows' ceiling). */
  mail: WorkloadFactory;
  /** The mail request alone, into an outbox nobody delivers from (the mail rows' second line). */
  mailOnly: WorkloadFactory;
}

async function startMinimal(scope: RunScope, bench: Bench, project: BenchProject, seeder: Seeder, userIds: string[]): Promise<Minimal> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = join(scope.tmp, 'minimal-key.pem');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const child = await track(
    scope,
    startChild({
      name: 'minimal handlers',
      script: 'bench/servers/minimal-server.ts',
      env: {
        DATABASE_URL: databaseUrl(scope.database),
        MINIMAL_SCHEMA: SVC_SCHEMA,
        MINIMAL_PROJECT_ID: project.id,
        MINIMAL_PRIVATE_KEY_FILE: keyFile,
        MINIMAL_MAIL_DIR: join(scope.mailboxes, 'minimal'),
      },
      logFile: join(scope.tmp, 'minimal.log'),
    }),
  );
  const sessions = await seeder.insertSessions(project.id, userIds.slice(0, 4));
  const tokens = sessions.map((s, i) =>
    signJwt(accessClaims({ projectId: project.id, sub: s.userId, sid: s.sessionId, email: `bench-user-${i + 1}@example.test`, role: 'user' }), privateKey, 'minimal'),
  );
  return {
    child,
    me: () => rows.bearerGet('/me', {}, tokens),
    refresh: () => refreshTokens(bench, seeder, project, userIds).then((t) => rows.refresh('/refresh', {}, t)),
    mail: () => ({ ...rows.minimalMailRequest(SEEDED_USERS, '/mail-request-delivered'), drained: () => minimalOutboxDrained(child.url) }),
    mailOnly: () => rows.minimalMailRequest(SEEDED_USERS, '/mail-request'),
  };
}

async function minimalRows(bench: Bench, minimal: Minimal, options: { again?: boolean } = {}): Promise<void> {
  bench.log(`\n-- ceilings: minimal handlers on bare node:http + raw pg (same schema, same rows)${options.again ? ', measured again' : ''} --`);
  const series: Array<[string, string, WorkloadFactory, string[]]> = [
    ['hello (node:http)', 'hello', () => rows.get('/hello'), []],
    ['me (minimal)', 'me', minimal.me, ['minimal me']],
    ['refresh (minimal)', 'refresh', minimal.refresh, ['minimal refresh']],
    ['mail request (minimal)', 'mail request', minimal.mailOnly, [MAIL_REQUEST_ONLY]],
    ['mail request + delivery (minimal)', 'mail request + delivery', minimal.mail, [MAIL_CEILING]],
  ];
  for (const [name, endpoint, make, dependants] of series) {
    if (options.again) await bench.remeasure(name, minimal.child.url, make, dependants);
    else await bench.series(name, name.startsWith('hello') ? 'node:http' : 'minimal (node:http+pg)', endpoint, minimal.child.url, make);
  }
}

/** Fresh single-use refresh tokens, a few per connection of the largest sweep point. */
async function refreshTokens(bench: Bench, seeder: Seeder, project: BenchProject, userIds: string[]): Promise<string[]> {
  const count = Math.max(...bench.args.sweep) * 3;
  return (await seeder.insertSessions(project.id, userIds.slice(0, count))).map((s) => s.refreshToken);
}

/**
 * The API's rows. With the minimal handlers (`minimal`, the PostgreSQL part), refresh, `/me` and
 * the mail rows are each measured in turn with their ceiling (Bench.inTurn); refresh's and `/me`'s
 * series are still measured for the chart. Otherwise (SQLite, or `--only` without `minimal`) each
 * is one row divided by the ceiling's series, if it was measured.
 */
export async function apiRows(bench: Bench, api: Child, project: BenchProject, seeder: Seeder, userIds: string[], system = 'svc · PostgreSQL', minimal: Minimal | null = null): Promise<void> {
  const { results } = bench;
  const key = { 'x-api-key': project.apiKey };
  const hash = (name: string): Ceiling => ({ name, perSecond: results.ceilings[name].perSecond });
  const tag = `${system.includes('SQLite') ? 'sqlite' : 'pg'}-${Date.now().toString(36)}`;
  if (bench.wants('sign-up')) await bench.row(system, 'sign-up', api.url, () => rows.signUp(project.apiKey, tag), { ceiling: hash('bcrypt hash') });
  // `inTurn`: the row is measured in turn with its ceiling below, and this series only charted.
  const seriesOrRow =
    system === 'svc · PostgreSQL'
      ? (name: string, endpoint: string, make: WorkloadFactory, ceiling: (c: number) => Ceiling | undefined, inTurn = false) =>
          bench.series(name, system, endpoint, api.url, make, ceiling, { record: !inTurn })
      : (_name: string, endpoint: string, make: WorkloadFactory, ceiling: (c: number) => Ceiling | undefined) =>
          bench.row(system, endpoint, api.url, make, { ceiling: ceiling(bench.args.connections) });
  // A row divided by a minimal handler's ceiling, taken in turn with it.
  // `beside`: a second ceiling measured in the same turns (the mail rows: the handler without delivery).
  const inTurn = async (endpoint: string, make: WorkloadFactory, ceilingName: string, ceiling: (handlers: Minimal) => WorkloadFactory, beside?: [string, (handlers: Minimal) => WorkloadFactory]) => {
    if (!minimal) return;
    const side = (name: string, of: (handlers: Minimal) => WorkloadFactory) => ({ system: 'minimal (node:http+pg)', endpoint, url: minimal.child.url, make: of(minimal), name });
    await bench.inTurn({ system, endpoint, url: api.url, make }, side(ceilingName, ceiling), undefined, beside && side(...beside));
  };
  if (bench.wants('login')) {
    const make = () => rows.logIn(project.apiKey, SEEDED_USERS);
    await seriesOrRow('login (svc)', 'login', make, () => hash('bcrypt compare'));
    // The series' point at one connection is charted; the target reads this (login-alone.ts).
    if (system === 'svc · PostgreSQL') results.loginAlone = await loginAloneInTurn(bench, api.url, make);
  }
  if (bench.wants('refresh')) {
    const make = () => refreshTokens(bench, seeder, project, userIds).then((t) => rows.refresh('/api/auth/refresh', key, t));
    await seriesOrRow('refresh (svc)', 'refresh', make, bench.ceilingFrom('minimal refresh', 'refresh (minimal)'), minimal !== null);
    await inTurn('refresh', make, 'minimal refresh, in turn', (handlers) => handlers.refresh);
  }
  const accessTokens = await Promise.all([1, 2, 3, 4].map((n) => logIn(api.url, project.apiKey, `bench-user-${n}@example.test`).then((t) => t.accessToken)));
  if (bench.wants('me')) {
    const make = () => rows.bearerGet('/api/auth/me', key, accessTokens);
    await seriesOrRow('me (svc)', 'me', make, bench.ceilingFrom('minimal me', 'me (minimal)'), minimal !== null);
    await inTurn('me', make, 'minimal me, in turn', (handlers) => handlers.me);
  }
  const mailCeiling = bench.ceilingFrom(MAIL_CEILING, 'mail request + delivery (minimal)')(bench.args.connections);
  // Each mail row ends when the mails it queued are delivered (see Bench.row), as its ceiling's does,
  // and is measured after a second of warm-up, as its ceiling's series is: the first mail row
  // otherwise pays the JIT of the whole mail path (request, outbox, composition) in its window.
  const delivered = () => outboxDrained(api.url);
  const mailRows: Array<[string, string, WorkloadFactory]> = [
    ['magic-link', 'magic-link request', () => ({ ...rows.magicLink(project.apiKey, SEEDED_USERS), drained: delivered })],
    ['password-reset', 'password-reset request', () => ({ ...rows.passwordReset(project.apiKey, SEEDED_USERS), drained: delivered })],
  ];
  for (const [section, endpoint, make] of mailRows) {
    if (!bench.wants(section)) continue;
    if (minimal) await inTurn(endpoint, make, `${MAIL_CEILING}, in turn`, (handlers) => handlers.mail, [`${MAIL_REQUEST_ONLY}, in turn`, (handlers) => handlers.mailOnly]);
    else await bench.row(system, endpoint, api.url, make, { ceiling: mailCeiling, warmUp: true });
  }
  if (system !== 'svc · PostgreSQL' || !bench.wants('mixed')) return;
  // Logins keep every pool thread busy (16 > 4 threads) while /me is asked: the case docs/security.md#access-tokens describes.
  await settle();
  const [login, me] = await runConcurrently([
    { url: api.url, connections: 16, seconds: bench.args.seconds, ...rows.logIn(project.apiKey, SEEDED_USERS) },
    { url: api.url, connections: bench.args.connections, seconds: bench.args.seconds, ...rows.bearerGet('/api/auth/me', key, accessTokens) },
  ]);
  results.mixed = { login, me };
  bench.log(`  mixed: login c=16 ${login.rps} req/s (p99 ${login.p99} ms) while me c=${me.connections} ${me.rps} req/s p50 ${me.p50} ms p99 ${me.p99} ms errors ${login.errors + me.errors}`);
}

/**
 * The session proxies' `GET session`, each divided by the API's own `/me` (what the proxy asks the
 * API for each answer), taken in turn with it (Bench.inTurn); then the minimal proxy's the same
 * way: the share any Node proxy asking /me once per answer reaches in the same run.
 */
async function proxyRow(bench: Bench, scope: RunScope, api: Child, project: BenchProject): Promise<void> {
  const { accessToken, refreshToken } = await logIn(api.url, project.apiKey, 'bench-user-5@example.test');
  const cookie = { cookie: `svc_at=${accessToken}; svc_rt=${refreshToken}` };
  const me = { system: 'svc · PostgreSQL', endpoint: 'me', url: api.url, make: () => rows.bearerGet('/api/auth/me', { 'x-api-key': project.apiKey }, [accessToken]), name: 'svc me, in turn' };
  for (const [system, start] of [
    ['session proxy → svc', () => startProxy(api.url, project.apiKey, join(scope.tmp, 'proxy.log'), bench.args.apiRoot)],
    ['mounted proxy → svc', () => startMountedProxy(api.url, project.apiKey, join(scope.tmp, 'mounted-proxy.log'), bench.args.apiRoot)],
    ['minimal proxy → svc', () => startMinimalProxy(api.url, project.apiKey, join(scope.tmp, 'minimal-proxy.log'))],
  ] as const) {
    const proxy = await track(scope, start());
    try {
      await bench.inTurn({ system, endpoint: 'GET session', url: proxy.url, make: () => rows.get('/api/session/session', cookie) }, me);
    } finally {
      await stop(scope, proxy);
    }
  }
}

/** A tenant of the 1M comparison: an API of its own on a database of its own, with the run's 1,000 users. */
interface Tenant {
  database: string;
  api: Child;
  project: BenchProject;
  seeder: Seeder;
  userIds: string[];
}

async function startTenant(bench: Bench, scope: RunScope, name: string, passwordHash: string): Promise<Tenant> {
  const database = `${scope.database}_${name}`;
  await createDatabase(database);
  scope.cleanups.push(() => dropDatabase(database));
  const api = await track(
    scope,
    startApi({
      storage: { kind: 'postgres', database, redisPrefix: `${scope.redisPrefix}${name}:` },
      cost: bench.args.cost,
      dataDir: dataDirWithMailbox(join(scope.tmp, `pg-${name}-data`), join(scope.mailboxes, `pg-${name}`)),
      logFile: join(scope.tmp, `api-pg-${name}.log`),
      root: bench.args.apiRoot,
    }),
  );
  const project = await createProject(api.url);
  const seeder = await postgresSeeder(databaseUrl(database));
  return { database, api, project, seeder, userIds: await seeder.insertUsers(project.id, 1, SEEDED_USERS, passwordHash) };
}

/**
 * Login, refresh and /me at 1,000 users and at 1,000,000, each the median of MILLION_SLICES
 * slices taken in turn (turns.ts). The two tenants are alike but for their size: each has an
 * API started for it and a database of its own with the same 1,000 users, and one of them is then
 * grown to a million (each user with a session and a refresh token). One row on either side of a
 * growth of minutes measured the machine's drift as much as the tenant's size (bench/README.md,
 * round 23).
 */
async function millionRows(bench: Bench, scope: RunScope, passwordHash: string): Promise<void> {
  const users = 1_000_000;
  const tenants: Tenant[] = [];
  try {
    const small = await startTenant(bench, scope, '1k', passwordHash);
    tenants.push(small);
    const large = await startTenant(bench, scope, '1m', passwordHash);
    tenants.push(large);
    const searchAt1k = bench.wants('user-search') ? await measureUserSearch(small.api.url, small.project.id) : null;
    if (searchAt1k) bench.log(`  user search (admin, ?q=, sequential) at 1k users: p50 ${searchAt1k.p50} ms p95 ${searchAt1k.p95} ms`);
    bench.log(`\n-- ${users.toLocaleString('en')} users: seeding one of two new tenants (set-based INSERT ... SELECT generate_series) --`);
    const started = Date.now();
    await seedUsersUpTo(databaseUrl(large.database), large.project.id, SEEDED_USERS + 1, users, passwordHash, (line) => bench.log(line));
    const seedSeconds = Math.round((Date.now() - started) / 1000);
    await settle(30);
    const sides = {
      '1k': { ...small, system: 'svc · PostgreSQL 1k', count: SEEDED_USERS, tokens: await accessTokensOf(small, [1, 500, 999]) },
      '1M': { ...large, system: 'svc · PostgreSQL 1M', count: users, tokens: await accessTokensOf(large, [1, 500_000, 999_999]) },
    };
    const workload = (side: '1k' | '1M', endpoint: string): WorkloadFactory => {
      const { project, seeder, userIds, count, tokens } = sides[side];
      const key = { 'x-api-key': project.apiKey };
      if (endpoint === 'login') return () => rows.logIn(project.apiKey, count);
      if (endpoint === 'refresh') return () => refreshTokens(bench, seeder, project, userIds).then((t) => rows.refresh('/api/auth/refresh', key, t));
      return () => rows.bearerGet('/api/auth/me', key, tokens);
    };
    bench.log(`\n-- two new tenants, of 1,000 users and of ${users.toLocaleString('en')}, ${MILLION_SLICES} slices each, in turn --`);
    // Per side, one list of rows per pair of slices (i >> 1), each list one row per endpoint.
    const pairs = () => Array.from({ length: MILLION_SLICES }, (): RowRecord[] => []);
    const slices = { '1k': pairs(), '1M': pairs() };
    for (const endpoint of ['login', 'refresh', 'me']) {
      if (!bench.wants(endpoint)) continue;
      for (const [i, side] of turns(MILLION_SLICES, '1k' as const, '1M' as const).entries()) {
        // Each slice after the same untimed second as the rows above (the tenants' APIs start cold).
        slices[side][i >> 1].push(await bench.row(sides[side].system, endpoint, sides[side].api.url, workload(side, endpoint), { record: false, warmUp: true }));
      }
    }
    const searchAt1M = searchAt1k ? await measureUserSearch(large.api.url, large.project.id) : null;
    const userSearch = searchAt1k && searchAt1M ? { at1k: searchAt1k, at1M: searchAt1M, p95Ratio: Math.round((searchAt1M.p95 / searchAt1k.p95) * 10) / 10 } : undefined;
    if (userSearch) bench.log(`  user search at 1M users: p50 ${searchAt1M!.p50} ms p95 ${searchAt1M!.p95} ms (p95 ${userSearch.p95Ratio}x the 1k figure)`);
    bench.results.million = {
      users,
      seedSeconds,
      slices: MILLION_SLICES,
      rows: medianRows(slices['1M']),
      baseline: medianRows(slices['1k']),
      ...(userSearch ? { userSearch } : {}),
    };
  } finally {
    for (const tenant of tenants) {
      await tenant.seeder.close();
      await stop(scope, tenant.api);
    }
  }
}

/** Access tokens of users `who` of a tenant, from real logins. */
function accessTokensOf(tenant: Tenant, who: readonly number[]): Promise<string[]> {
  return Promise.all(who.map((n) => logIn(tenant.api.url, tenant.project.apiKey, `bench-user-${n}@example.test`).then((t) => t.accessToken)));
}
