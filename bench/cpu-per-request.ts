// `tsx bench/cpu-per-request.ts [--api-root DIR | --built DIR] [--requests N] [--warm-up N] [--users N] [--pg-io] [--profile] [--gc] [--minimal] [--mail-on-disk] [--pg-log FILE] <row>`:
// CPU time the API process and PostgreSQL's backends serving it spend per request of one row (magic-link, password-reset, refresh, me,
// or proxy / mounted-proxy / minimal-proxy: GET session through the standalone, the mounted or the minimal session proxy, whose own
// process is measured too), read from /proc before and after N requests at 10 connections. On a machine shared with other
// work req/s swings with the neighbours; CPU per request moves much less, so an A/B of a change
// (--api-root on a checkout without it) reads better from it. `failed` counts non-2xx answers and
// errors of the measured requests, `latencyMs` their answers' p50 and p99 at 10 connections; `apiMainThreadCpuUsPerRequest` is the API's main thread alone (the event loop: the
// bottleneck of a busy instance), `apiMainThreadSystemCpuUsPerRequest` the part of it spent in the kernel (system calls), `apiThreadsCpuUsPerRequest`
// the process's CPU by kind of thread (bench/lib/proc-cpu.ts: `main`, V8's helpers, the libuv pool), `redisCpuUsPerRequest` the Redis
// server's (the rate limits' scripts); `untilDeliveredMs` is the time from the first measured request until
// the outbox is empty again, and `mailDelayMs` (mail rows) how long their mails waited from request to delivery (p50, p99, longest). The proxy rows add
// `proxyCpuUsPerRequest` (the proxy process, every thread), `proxySystemCpuUsPerRequest` (the part of it in the kernel) and
// `proxyThreadsCpuUsPerRequest` (the proxy's CPU by kind of thread, as the API's). --warm-up N: the untimed requests before the
// measured ones (default 500). A freshly started server is still compiling its hot paths then: the proxy's V8 helper threads took
// about five times the CPU per request after 500 as after 30,000 (bench/README.md, round 41). --profile profiles the API, or the proxy in the proxy rows.
// --gc runs the measured process with V8's --trace-gc-nvp and adds `gc`: its main isolate's collections during the measured
// requests (scavenges, their median and longest pause, the median promoted to the old generation per scavenge; mark-compacts).
// --minimal (refresh, me and the mail rows, whose minimal handler delivers its mails too): measures the minimal handler of the row (bench/servers/minimal-server.ts, the
// ceiling) the same way, in the API's place. --pg-log FILE (PostgreSQL's server log, readable here): every
// statement of the measured requests is logged (log_min_duration_statement = 0 on the scratch database only),
// and a table of them per request (parse, bind, execute: count and server time) is printed; the logging
// costs CPU of its own, so CPU figures of such a run are not comparable. The file mailboxes are in memory as in
// `pnpm bench` (bench/lib/mailbox-folder.ts); --mail-on-disk puts them in the scratch folder. --built DIR runs the API as the
// image does (`node dist/cli.js start` with the image's ENV, its malloc among it, in a built server's app folder, scripts/build-image-steps.mjs --keep: <work>/api-root/app)
// instead of this checkout's TypeScript under tsx. --users N grows the tenant from its 1,000 users to N (as `pnpm bench --million`
// does, bench/lib/million.ts) before the measured requests, which still ask as the first 1,000; the row is then measured at
// 1,000 users, 30 s after the growth and again after the kernel wrote the new rows back. --pg-io adds `postgresIoPerRequest`: the
// WAL records, full-page images and WAL bytes the server wrote per request (pg_stat_wal: the whole server's, so nothing else should
// run on it), the scratch database's buffer reads that missed PostgreSQL's shared buffers and that hit them (pg_stat_database),
// and its rows updated, in all and in place (heap-only tuples, which add no index entries; pg_stat_user_tables).
// Backends publish these counters up to 10 s after they go idle, so each reading waits 11 s.
// Not part of `pnpm bench`.
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { summarizeProfile } from './lib/cpuprofile';
import { summarizeGcTrace } from './lib/gc-trace';
import { createDatabase, databaseUrl, dropDatabase, PG_URL, postgresSeeder, SVC_SCHEMA, withClient } from './lib/database';
import { accessClaims, signJwt } from './lib/jwt';
import { builtNode, imageEnv } from './lib/built';
import { settle } from './lib/load';
import { seedUsersUpTo } from './lib/million';
import { quietDisk } from './lib/quiet-disk';
import { dataDirWithMailbox, mailboxFolder } from './lib/mailbox-folder';
import { startChild, type Child } from './lib/processes';
import { flagTaker, switchTaker } from './lib/pair-args';
import { pidsNamed, pidsWhere, threadCpuPerRequest, threadTicks, ticks, ticksOf, usPerRequest } from './lib/proc-cpu';
import * as rows from './lib/rows';
import { clearRedisPrefix, createProject, logIn, minimalOutboxDrained, outboxDrained, servicePasswordHash, startApi, startMinimalProxy, startMountedProxy, startProxy } from './lib/svc';

const argv = process.argv.slice(2);
const flag = flagTaker(argv);
const isSet = switchTaker(argv);
const root = flag('--api-root') ?? null;
const builtDir = flag('--built') ?? null;
const requests = Number(flag('--requests') ?? 3000);
const profile = isSet('--profile');
const gcTrace = isSet('--gc');
const pgLog = flag('--pg-log') ?? null;
const minimal = isSet('--minimal');
const mailOnDisk = isSet('--mail-on-disk');
const users = Number(flag('--users') ?? 1000);
const pgIo = isSet('--pg-io');
const warmUp = Number(flag('--warm-up') ?? 500);
const row = argv[0] ?? 'magic-link';
const proxied = row === 'proxy' || row === 'mounted-proxy' || row === 'minimal-proxy';
if (minimal && proxied) throw new Error('--minimal measures the refresh, me and mail rows only');
if (builtDir && root) throw new Error('--built runs a built server instead of a checkout: leave out --api-root');
if (builtDir && !existsSync(join(builtDir, 'dist', 'cli.js'))) throw new Error(`--built ${builtDir} holds no dist/cli.js: give a built server's app folder`);
const mailRow = row === 'magic-link' || row === 'password-reset';

/**
 * The session proxy of the row in front of `apiUrl`, as the bench's proxy rows start it
 * (bench/lib/svc.ts), here with node flags of its own (--cpu-prof on the proxy rather than the API).
 */
function startProxyChild(apiUrl: string, apiKey: string, logFile: string, nodeFlags: string[]): Promise<Child> {
  if (row === 'proxy') return startProxy(apiUrl, apiKey, logFile, root, nodeFlags);
  if (row === 'minimal-proxy') return startMinimalProxy(apiUrl, apiKey, logFile, nodeFlags);
  return startMountedProxy(apiUrl, apiKey, logFile, root, nodeFlags);
}

/**
 * How long the measured requests' mails waited from their request to their delivery (`sent_at -
 * created_at` of `table` in the service's schema, mails created since `since`): p50, p99 and the
 * longest, in ms. The answers come first; this is what a user waits for the mail itself.
 */
async function mailDelays(database: string, table: string, since: Date): Promise<{ p50: number; p99: number; max: number }> {
  return withClient(databaseUrl(database), async (client) => {
    const { rows } = await client.query<{ p50: number; p99: number; max: number }>(
      `SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY d))::int AS p50, round(percentile_cont(0.99) WITHIN GROUP (ORDER BY d))::int AS p99, round(max(d))::int AS max
       FROM (SELECT extract(epoch FROM sent_at - created_at) * 1000 AS d FROM ${SVC_SCHEMA}.${table} WHERE created_at >= $1 AND sent_at IS NOT NULL) delays`,
      [since],
    );
    return rows[0];
  });
}

/** PostgreSQL's backends serving `database` (their title names it), not other work's. */
function postgresTicks(database: string): number {
  return ticksOf(pidsWhere((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${database} `)));
}

/** CPU time of every Redis server on the machine: the bench's, on 127.0.0.1:6379 (another one's work would count too). */
function redisTicks(): number {
  return ticksOf(pidsNamed('redis-server'));
}

interface PostgresIo {
  walRecords: number;
  walFullPageImages: number;
  walBytes: number;
  blocksRead: number;
  blocksHit: number;
  rowsUpdated: number;
  rowsUpdatedInPlace: number;
}

/**
 * The server's WAL counters and `database`'s buffer and row-update counters, once idle backends have published
 * theirs (PostgreSQL's idle stats interval is 10 s).
 */
async function postgresIo(database: string): Promise<PostgresIo> {
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  return withClient(databaseUrl(database), async (client) => {
    const { rows } = await client.query<Record<keyof PostgresIo, string>>(
      `SELECT w.wal_records AS "walRecords", w.wal_fpi AS "walFullPageImages", w.wal_bytes AS "walBytes", d.blks_read AS "blocksRead", d.blks_hit AS "blocksHit",
              t.updated AS "rowsUpdated", t.hot AS "rowsUpdatedInPlace"
       FROM pg_stat_wal w, pg_stat_database d,
            (SELECT coalesce(sum(n_tup_upd), 0) AS updated, coalesce(sum(n_tup_hot_upd), 0) AS hot FROM pg_stat_user_tables) t
       WHERE d.datname = current_database()`,
    );
    return Object.fromEntries(Object.entries(rows[0]).map(([name, value]) => [name, Number(value)])) as unknown as PostgresIo;
  });
}

/** Each counter's growth from `before` to `after` per request, to two decimals. */
function ioPerRequest(before: PostgresIo, after: PostgresIo, perRequest: number): Record<keyof PostgresIo, number> {
  const names = Object.keys(before) as Array<keyof PostgresIo>;
  return Object.fromEntries(names.map((name) => [name, Math.round(((after[name] - before[name]) / perRequest) * 100) / 100])) as Record<keyof PostgresIo, number>;
}

/**
 * The statements logged in `text` (PostgreSQL's log from the measured window, every statement
 * logged with its duration, the line prefix naming the database as Debian's does) on `database`:
 * per phase and statement, how often per request and the server's time for it. Extended-protocol
 * statements log parse, bind (planning, for an unnamed statement) and execute separately; simple
 * ones (`statement:`) once.
 */
function statementTable(text: string, database: string, perRequest: number): Array<Record<string, string | number>> {
  const lines: string[] = [];
  let keep = false;
  for (const line of text.split('\n')) {
    const prefixed = /^\d{4}-\d\d-\d\d [\d:.]+ \w+ \[\d+\] (?:\S*@(\S+) )?(\w+):\s+(.*)$/.exec(line);
    if (prefixed) {
      keep = prefixed[1] === database && prefixed[2] === 'LOG' && prefixed[3].startsWith('duration:');
      if (keep) lines.push(prefixed[3]);
    } else if (keep && lines.length > 0) lines[lines.length - 1] += ` ${line.trim()}`;
  }
  const table = new Map<string, { count: number; ms: number }>();
  for (const line of lines) {
    const match = /^duration: ([\d.]+) ms\s+(parse|bind|execute|statement)\s*([^:]*):\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, ms, phase, name, sql] = match;
    const key = `${phase}${name ? ` ${name}` : ''}\t${sql.replace(/\s+/g, ' ').trim().slice(0, 90)}`;
    const entry = table.get(key) ?? { count: 0, ms: 0 };
    entry.count += 1;
    entry.ms += Number(ms);
    table.set(key, entry);
  }
  return [...table.entries()]
    .sort((a, b) => b[1].count - a[1].count || b[1].ms - a[1].ms)
    .map(([key, { count, ms }]) => {
      const [phase, statement] = key.split('\t');
      return { phase, perRequest: Number((count / perRequest).toFixed(2)), usEach: Math.round((ms * 1000) / count), statement };
    });
}

/** The minimal handlers (bench/servers/minimal-server.ts) on `database`, as bench/lib/suite-postgres.ts starts them, with a key of their own. */
async function startMinimal(
  database: string,
  projectId: string,
  tmp: string,
  mailDir: string,
  nodeFlags: string[],
): Promise<{ child: Child; sign: (who: { userId: string; sessionId: string }, n: number) => string }> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = join(tmp, 'minimal-key.pem');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const child = await startChild({
    name: 'minimal handlers',
    script: 'bench/servers/minimal-server.ts',
    env: { DATABASE_URL: databaseUrl(database), MINIMAL_SCHEMA: SVC_SCHEMA, MINIMAL_PROJECT_ID: projectId, MINIMAL_PRIVATE_KEY_FILE: keyFile, MINIMAL_MAIL_DIR: mailDir },
    logFile: join(tmp, 'minimal.log'),
    nodeFlags,
  });
  const sign = (who: { userId: string; sessionId: string }, n: number) =>
    signJwt(accessClaims({ projectId, sub: who.userId, sid: who.sessionId, email: `bench-user-${n}@example.test`, role: 'user' }), privateKey, 'minimal');
  return { child, sign };
}

async function main(): Promise<void> {
  const id = `${process.pid}_${Date.now().toString(36)}`;
  const database = `svc_cpu_${id}`;
  const redisPrefix = `svcbench:${id}:`;
  const tmp = mkdtempSync(join(tmpdir(), 'svc-cpu-'));
  const mailboxes = mailboxFolder(tmp, mailOnDisk);
  await createDatabase(database);
  // Before any connection: the setting applies to the sessions opened after it.
  if (pgLog) await withClient(PG_URL, (client) => client.query(`ALTER DATABASE ${database} SET log_min_duration_statement = 0`));
  const profileDir = join(tmp, 'profile');
  const nodeFlags = [...(profile ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []), ...(gcTrace ? ['--trace-gc-nvp'] : [])];
  // The measured process's log: its collections are read from it (--gc).
  const measuredLog = join(tmp, minimal ? 'minimal.log' : proxied ? 'proxy.log' : 'api.log');
  const api = await startApi({
    storage: { kind: 'postgres', database, redisPrefix },
    cost: 4,
    dataDir: dataDirWithMailbox(join(tmp, 'data'), join(mailboxes.dir, 'api')),
    logFile: join(tmp, 'api.log'),
    root,
    built: builtDir ? { dir: builtDir, node: builtNode(builtDir) } : undefined,
    // A built server runs with the image's ENV (its malloc), as the bench's built rows run it.
    env: builtDir ? imageEnv(builtDir) : undefined,
    nodeFlags: proxied || minimal ? [] : nodeFlags,
  });
  let proxy: Child | null = null;
  let measured: Child | null = null;
  let measuredMs = 0;
  try {
    const project = await createProject(api.url);
    const seeder = await postgresSeeder(databaseUrl(database));
    const passwordHash = await servicePasswordHash(4);
    const userIds = await seeder.insertUsers(project.id, 1, 1000, passwordHash);
    const key = { 'x-api-key': project.apiKey };
    let target = api.url;
    if (proxied) {
      proxy = await startProxyChild(api.url, project.apiKey, join(tmp, 'proxy.log'), nodeFlags);
      target = proxy.url;
    }
    const bare = minimal ? await startMinimal(database, project.id, tmp, join(mailboxes.dir, 'minimal'), nodeFlags) : null;
    if (bare) {
      measured = bare.child;
      target = bare.child.url;
    }
    const make = async (): Promise<rows.Workload> => {
      if (bare && row === 'refresh')
        return rows.refresh(
          '/refresh',
          {},
          (await seeder.insertSessions(project.id, userIds.slice(0, 30))).map((s) => s.refreshToken),
        );
      if (bare && mailRow) return rows.minimalMailRequest(1000, '/mail-request-delivered');
      if (bare)
        return rows.bearerGet(
          '/me',
          {},
          (await seeder.insertSessions(project.id, userIds.slice(0, 4))).map((s, i) => bare.sign(s, i + 1)),
        );
      if (row === 'magic-link') return rows.magicLink(project.apiKey, 1000);
      if (row === 'password-reset') return rows.passwordReset(project.apiKey, 1000);
      if (row === 'refresh')
        return rows.refresh(
          '/api/auth/refresh',
          key,
          (await seeder.insertSessions(project.id, userIds.slice(0, 30))).map((s) => s.refreshToken),
        );
      const { accessToken, refreshToken } = await logIn(api.url, project.apiKey, 'bench-user-1@example.test');
      // The proxy rows' request is the bench's (bench/lib/suite-postgres.ts proxyRow).
      if (proxied) return rows.get('/api/session/session', { cookie: `svc_at=${accessToken}; svc_rt=${refreshToken}` });
      return rows.bearerGet('/api/auth/me', key, [accessToken]);
    };
    const drive = async (amount: number) => {
      const work = await make();
      const result = await autocannon({
        url: target,
        connections: 10,
        amount,
        requests: [
          {
            setupRequest: (request) => {
              const spec = work.next();
              return { ...request, method: spec.method, path: spec.path, headers: { 'content-type': 'application/json', ...spec.headers }, body: spec.body };
            },
            onResponse: (status, body) => work.onResponse?.(status, body),
          },
        ],
      });
      return { failed: result.non2xx + result.errors, p50: result.latency.p50, p99: result.latency.p99 };
    };
    const measure = async (phase: string) => {
      await drive(warmUp); // warm-up (JIT, pools)
      // The outbox worker (the API's, or the minimal handler's delivery) catches up.
      const drained = () => (bare && mailRow ? minimalOutboxDrained(bare.child.url) : outboxDrained(api.url));
      await drained();
      const pid = (measured ?? api).process.pid!;
      const proxyPid = proxy?.process.pid;
      const logFrom = pgLog ? statSync(pgLog).size : 0;
      const measuredLogFrom = gcTrace ? statSync(measuredLog).size : 0;
      const ioBefore = pgIo ? await postgresIo(database) : null;
      const [apiBefore, mainBefore, mainSystemBefore, pgBefore] = [ticks(pid), ticks(pid, true), ticks(pid, true, true), postgresTicks(database)];
      const [proxyBefore, proxySystemBefore] = proxyPid ? [ticks(proxyPid), ticks(proxyPid, false, true)] : [0, 0];
      const [threadsBefore, redisBefore] = [threadTicks(pid), redisTicks()];
      const proxyThreadsBefore = proxyPid ? threadTicks(proxyPid) : null;
      const started = Date.now();
      const { failed, p50, p99 } = await drive(requests);
      await drained(); // every mail the requests queued is delivered
      measuredMs = Date.now() - started;
      const proxyUs = proxyPid
        ? {
            proxyCpuUsPerRequest: usPerRequest(ticks(proxyPid) - proxyBefore, requests),
            proxySystemCpuUsPerRequest: usPerRequest(ticks(proxyPid, false, true) - proxySystemBefore, requests),
            ...(proxyThreadsBefore ? { proxyThreadsCpuUsPerRequest: threadCpuPerRequest(proxyThreadsBefore, threadTicks(proxyPid), requests) } : {}),
          }
        : {};
      const server = minimal ? { server: `minimal ${row}` } : {};
      const apiFigures = {
        apiCpuUsPerRequest: usPerRequest(ticks(pid) - apiBefore, requests),
        apiMainThreadCpuUsPerRequest: usPerRequest(ticks(pid, true) - mainBefore, requests),
        apiMainThreadSystemCpuUsPerRequest: usPerRequest(ticks(pid, true, true) - mainSystemBefore, requests),
        apiThreadsCpuUsPerRequest: threadCpuPerRequest(threadsBefore, threadTicks(pid), requests),
        postgresCpuUsPerRequest: usPerRequest(postgresTicks(database) - pgBefore, requests),
        redisCpuUsPerRequest: usPerRequest(redisTicks() - redisBefore, requests),
        untilDeliveredMs: measuredMs,
        latencyMs: { p50, p99 },
      };
      const io = ioBefore ? { postgresIoPerRequest: ioPerRequest(ioBefore, await postgresIo(database), requests) } : {};
      const gc = gcTrace ? { gc: summarizeGcTrace(readFileSync(measuredLog).subarray(measuredLogFrom).toString('utf8')) } : {};
      const delays = mailRow ? { mailDelayMs: await mailDelays(database, bare ? 'minimal_delivered_outbox' : 'mail_outbox', new Date(started)) } : {};
      console.log(JSON.stringify({ row, ...server, phase, root: builtDir ? `built: ${builtDir}` : (root ?? 'this checkout'), requests, failed, ...proxyUs, ...apiFigures, ...io, ...delays, ...gc }));
      if (pgLog) {
        const log = readFileSync(pgLog).subarray(logFrom).toString('utf8');
        console.table(statementTable(log, database, requests));
      }
    };
    if (users > 1000) {
      // The same requests before growing, right after (as `pnpm bench --million` measures, after
      // 30 s for the CPUs to settle), and again once the kernel has written the new rows back:
      // what changes with the rows' count and what only with the machine's state after the growth.
      await measure('1,000 users');
      await seedUsersUpTo(databaseUrl(database), project.id, 1001, users, passwordHash, (line) => console.error(line));
      await settle(30);
      await measure(`${users.toLocaleString('en')} users, 30 s after growing`);
      const disk = await quietDisk(600);
      await settle(60);
      await measure(`${users.toLocaleString('en')} users, after the write-back (${disk.seconds} s)`);
    } else await measure(`${users.toLocaleString('en')} users`);
    await seeder.close();
  } finally {
    await proxy?.stop();
    await measured?.stop();
    await api.stop();
    if (profile) {
      // The profiled process (the proxy in the proxy rows, the minimal handlers with --minimal, else the API) wrote its profile on exit:
      // self time per owner and frame over the measured window.
      const file = join(profileDir, readdirSync(profileDir)[0]);
      const summary = summarizeProfile(file, measuredMs, 20);
      console.log(JSON.stringify({ owners: summary.owners.slice(0, 15), frames: summary.frames.slice(0, 20) }, null, 1));
    }
    await dropDatabase(database);
    await clearRedisPrefix(redisPrefix).catch(() => undefined);
    // BENCH_KEEP_TMP=1 keeps the scratch folder (every child's log), as it does for `pnpm bench`.
    if (process.env.BENCH_KEEP_TMP) console.error(`scratch folder kept: ${tmp} (mailboxes: ${mailboxes.dir})`);
    else {
      rmSync(tmp, { recursive: true, force: true });
      mailboxes.remove();
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
