import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchArgs } from './args';
import { formatSummary, summarizeProfile, type ProfileSummary } from './cpuprofile';
import { createDatabase, databaseUrl, postgresSeeder } from './database';
import { runConcurrently, runLoad } from './load';
import { ROOT } from './processes';
import * as rows from './rows';
import { SEEDED_USERS, stop, track, type RunScope } from './suite-postgres';
import { createProject, logIn, servicePasswordHash, startApi } from './svc';

/**
 * `pnpm bench --profile`: the API on PostgreSQL + Redis under --cpu-prof, once each for a login +
 * /me mix, refresh, and /me alone, 10 s each (or --seconds; BENCH_PROFILE_ONLY=me,refresh picks). Prints the top frames and owners of each
 * profile and writes the summaries to bench/results/profile-<date>.json (.cpuprofile kept in tmp
 * with BENCH_KEEP_TMP=1, for a flame graph in Chrome DevTools or speedscope).
 */
export async function runProfile(args: BenchArgs, scope: RunScope): Promise<void> {
  const seconds = Math.max(args.seconds, 10);
  await createDatabase(scope.database);
  const profiles: Record<string, ProfileSummary> = {};
  const only = process.env.BENCH_PROFILE_ONLY;
  const scenarios = (['login+me', 'refresh', 'me'] as const).filter((name) => !only || only.split(',').includes(name));
  for (const [index, scenario] of scenarios.entries()) {
    const dir = join(scope.tmp, `profile-${scenario}`);
    mkdirSync(dir, { recursive: true });
    const api = await track(
      scope,
      startApi({
        storage: { kind: 'postgres', database: scope.database, redisPrefix: scope.redisPrefix },
        cost: args.cost,
        dataDir: join(scope.tmp, 'pg-data'),
        logFile: join(scope.tmp, `api-${scenario}.log`),
        nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
        root: args.apiRoot,
      }),
    );
    const project = await createProject(api.url);
    const seeder = await postgresSeeder(databaseUrl(scope.database));
    const from = index * SEEDED_USERS + 1; // every API start shares the database; e-mails must differ
    const userIds = await seeder.insertUsers(project.id, from, from + SEEDED_USERS - 1, await servicePasswordHash(args.cost));
    const key = { 'x-api-key': project.apiKey };
    const started = Date.now();
    if (scenario === 'login+me') {
      const tokens = await Promise.all([from, from + 1].map((n) => logIn(api.url, project.apiKey, `bench-user-${n}@example.test`).then((t) => t.accessToken)));
      const [login, me] = await runConcurrently([
        { url: api.url, connections: 16, seconds, ...rows.logIn(project.apiKey, SEEDED_USERS, from) },
        { url: api.url, connections: args.connections, seconds, ...rows.bearerGet('/api/auth/me', key, tokens) },
      ]);
      console.log(`profiled login+me: login ${login.rps} req/s, me ${me.rps} req/s (p99 ${me.p99} ms)`);
    } else if (scenario === 'me') {
      const tokens = await Promise.all([from, from + 1].map((n) => logIn(api.url, project.apiKey, `bench-user-${n}@example.test`).then((t) => t.accessToken)));
      const result = await runLoad({ url: api.url, connections: args.connections, seconds, ...rows.bearerGet('/api/auth/me', key, tokens) });
      console.log(`profiled me: ${result.rps} req/s (p99 ${result.p99} ms)`);
    } else {
      const tokens = (await seeder.insertSessions(project.id, userIds.slice(0, 100))).map((s) => s.refreshToken);
      const result = await runLoad({ url: api.url, connections: args.connections, seconds, ...rows.refresh('/api/auth/refresh', key, tokens) });
      console.log(`profiled refresh: ${result.rps} req/s (p99 ${result.p99} ms)`);
    }
    const windowMs = Date.now() - started;
    await seeder.close();
    await stop(scope, api);
    profiles[scenario] = summarizeProfile(largest(dir), windowMs);
    console.log(formatSummary(`\n${scenario}`, profiles[scenario]));
  }
  const out = join(ROOT, 'bench', 'results', `profile-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}${args.label === 'run' ? '' : `-${args.label}`}.json`);
  writeFileSync(out, `${JSON.stringify(profiles, null, 2)}\n`);
  console.log(`\nProfile summaries: ${out}${process.env.BENCH_KEEP_TMP ? `; .cpuprofile files under ${scope.tmp}` : ''}`);
}

/** The main thread's profile: tsx's loader thread writes a small one of its own. */
function largest(dir: string): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f));
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}: did the API exit cleanly?`);
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
}
