// `tsx bench/paired-latency.ts --api-root DIR [--requests N] [--cost N] [--warm-up N] <login|sign-up|refresh>`:
// the answer time of one request at a time, this checkout's API (A) against another checkout's (B,
// --api-root: a copy of the tree without the change), both running at once on one database and
// asked in turn: A, B, then B, A, and so on. A change of a few round trips moves a sign-in's
// answer by a millisecond or two, less than this machine's drift between two runs taken a minute
// apart; asked in turn, both sides meet the same drift, and the median of the pairs' differences
// (B − A) shows what the change is worth. The default bcrypt cost is 4, so that the compare (about
// a millisecond) leaves the rest of the answer to be seen. Not part of `pnpm bench`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, databaseUrl, dropDatabase, postgresSeeder, seedEmail } from './lib/database';
import { flagTaker } from './lib/pair-args';
import { clearRedisPrefix, createProject, logIn, PASSWORD, servicePasswordHash, startApi } from './lib/svc';
import type { Child } from './lib/processes';
import { threadCpuPerRequest, threadTicks } from './lib/proc-cpu';
import { firstOfPair, pairedSummary } from './lib/paired';

const argv = process.argv.slice(2);
const flag = flagTaker(argv);
const otherRoot = flag('--api-root');
const requests = Number(flag('--requests') ?? 1500);
const warmUp = Number(flag('--warm-up') ?? 200);
const cost = Number(flag('--cost') ?? 4);
const PATHS = { login: '/api/auth/login', 'sign-up': '/api/auth/signup', refresh: '/api/auth/refresh' } as const;
const rowName = argv[0] ?? 'login';
if (!otherRoot) throw new Error('--api-root DIR: the checkout to compare this one with');
if (!Object.hasOwn(PATHS, rowName)) throw new Error(`unknown row ${rowName}: ${Object.keys(PATHS).join(', ')}`);
const row = rowName as keyof typeof PATHS;

const USERS = 1000;

function apiPid(child: Child): number {
  if (child.process.pid === undefined) throw new Error(`${child.name} has no process id`);
  return child.process.pid;
}

/** One API under measurement; for refresh, the token its next request presents (each answer's successor). */
interface Side {
  url: string;
  refreshToken?: string;
}

/** The body of the row's `n`th request to `side`. */
function bodyOf(side: Side, n: number): Record<string, string> {
  if (row === 'login') return { email: seedEmail((n % USERS) + 1), password: PASSWORD };
  if (row === 'sign-up') return { email: `paired-${n}-${process.pid}@example.test`, password: PASSWORD };
  if (!side.refreshToken) throw new Error('refresh: the side has no token to present');
  return { refreshToken: side.refreshToken };
}

/** One request of the row to `side`; its answer time in ms. A failed answer stops the run. */
async function timed(side: Side, apiKey: string, n: number): Promise<number> {
  const body = JSON.stringify(bodyOf(side, n));
  const started = process.hrtime.bigint();
  const response = await fetch(`${side.url}${PATHS[row]}`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body });
  const text = await response.text();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (!response.ok) throw new Error(`${row} answered ${response.status}: ${text}`);
  if (row === 'refresh') side.refreshToken = (JSON.parse(text) as { data: { refreshToken: string } }).data.refreshToken;
  return ms;
}

async function main(): Promise<void> {
  const id = `${process.pid}_${Date.now().toString(36)}`;
  const database = `svc_paired_${id}`;
  const tmp = mkdtempSync(join(tmpdir(), 'svc-paired-'));
  await createDatabase(database);
  const sides: Child[] = [];
  try {
    // One after the other: the second finds the schema migrated.
    for (const [name, root] of [
      ['a', null],
      ['b', otherRoot],
    ] as const) {
      const storage = { kind: 'postgres' as const, database, redisPrefix: `svcbench:${id}:${name}:` };
      sides.push(await startApi({ storage, cost, dataDir: join(tmp, `data-${name}`), logFile: join(tmp, `api-${name}.log`), root }));
    }
    const [a, b] = sides;
    const project = await createProject(a.url);
    const seeder = await postgresSeeder(databaseUrl(database));
    await seeder.insertUsers(project.id, 1, USERS, await servicePasswordHash(cost));
    await seeder.close();
    // Refresh: each side rotates a session of its own, signed in through it.
    const on = { a: { url: a.url } as Side, b: { url: b.url } as Side };
    if (row === 'refresh') {
      on.a.refreshToken = (await logIn(a.url, project.apiKey, seedEmail(1))).refreshToken;
      on.b.refreshToken = (await logIn(b.url, project.apiKey, seedEmail(2))).refreshToken;
    }
    for (let n = 0; n < warmUp; n++) {
      await timed(on.a, project.apiKey, n);
      await timed(on.b, project.apiKey, n + warmUp);
    }
    const times = { a: [] as number[], b: [] as number[] };
    const cpuBefore = { a: threadTicks(apiPid(a)), b: threadTicks(apiPid(b)) };
    for (let n = 0; n < requests; n++) {
      const at = 2 * (warmUp + n);
      const first = firstOfPair(n);
      const second = first === 'a' ? 'b' : 'a';
      const pair = { [first]: await timed(on[first], project.apiKey, at), [second]: await timed(on[second], project.apiKey, at + 1) } as { a: number; b: number };
      times.a.push(pair.a);
      times.b.push(pair.b);
    }
    const cpu = {
      a: threadCpuPerRequest(cpuBefore.a, threadTicks(apiPid(a)), requests),
      b: threadCpuPerRequest(cpuBefore.b, threadTicks(apiPid(b)), requests),
    };
    const { a: timesA, b: timesB, ...compared } = pairedSummary(times);
    // The API's CPU per request by kind of thread (µs; proc-cpu.ts): how much of the answer time is work of the API's own.
    const result = {
      row,
      cost,
      requestsEach: requests,
      a: { root: 'this checkout', ...timesA, cpuUsPerRequest: cpu.a },
      b: { root: otherRoot, ...timesB, cpuUsPerRequest: cpu.b },
      ...compared,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    for (const side of sides) await side.stop();
    await dropDatabase(database);
    await clearRedisPrefix(`svcbench:${id}:`).catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
