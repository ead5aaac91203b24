/**
 * Do magic-link and reset requests answer as fast for an address with an account as for one
 * without? The answer time must not tell (docs/decisions.md, "Mail requests answer first").
 *
 *   tsx bench/mail-timing.ts [--rounds 1000] [--gap-ms 20] [--api-root DIR]
 *
 * Starts the API as the bench does (NODE_ENV=production, PostgreSQL, Redis, limits raised), seeds
 * one account, then sends rounds of four requests one at a time (reset known / unknown, magic link
 * known / unknown, both with createIfNotExists false), each round in a new random order so that drift
 * and the work one request leaves behind hit every path alike,
 * and prints each path's median and p90 answer time and the known/unknown ratio of the medians.
 * `--api-root` runs the API from another checkout (the before/after in bench/README.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createDatabase, dropDatabase } from './lib/database';
import { ADMIN_TOKEN, createProject, startApi } from './lib/svc';

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const ROUNDS = Number(argument('rounds') ?? 1000);
/**
 * Pause before each request, so that each starts on a quiet server: the work a known address's
 * request leaves after its answer (the outbox insert, the worker's send) would otherwise slow
 * whichever request comes next. `--gap-ms 0` measures that effect too.
 */
const GAP_MS = Number(argument('gap-ms') ?? 20);
const WARMUP = 200;

async function post(url: string, apiKey: string, body: object): Promise<number> {
  const started = process.hrtime.bigint();
  const response = await fetch(url, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  return ms;
}

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main(): Promise<void> {
  const id = randomBytes(4).toString('hex');
  const database = `svc_mailtiming_${id}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-mail-timing-'));
  await createDatabase(database);
  const api = await startApi({
    storage: { kind: 'postgres', database, redisPrefix: `svcbench:${id}:` },
    cost: 4,
    dataDir,
    logFile: join(dataDir, 'api.log'),
    root: argument('api-root') ?? null,
  });
  try {
    const project = await createProject(api.url);
    const patched = await fetch(`${api.url}/admin/projects/${project.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ passwordResetUrl: 'http://localhost:5173/reset' }),
    });
    if (patched.status !== 200) throw new Error(`PATCH project: ${patched.status}`);
    const known = 'known@example.test';
    const signup = await fetch(`${api.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'x-api-key': project.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: known, password: 'correct horse battery staple' }),
    });
    if (signup.status !== 201) throw new Error(`signup: ${signup.status}`);
    // One unknown address, as long as the known one, and the same body on both paths: the paths
    // differ in the account alone (a fresh address per request would also cost fresh limiter keys).
    const unknown = 'nobody@example.test';
    const paths: Record<string, () => Promise<number>> = {
      'reset, known': () => post(`${api.url}/api/auth/password/reset`, project.apiKey, { email: known }),
      'reset, unknown': () => post(`${api.url}/api/auth/password/reset`, project.apiKey, { email: unknown }),
      'magic link, known': () => post(`${api.url}/api/auth/magic-link`, project.apiKey, { email: known, createIfNotExists: false }),
      'magic link, unknown': () => post(`${api.url}/api/auth/magic-link`, project.apiKey, { email: unknown, createIfNotExists: false }),
    };
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(paths).map((path) => [path, []]));
    for (let round = 0; round < WARMUP + ROUNDS; round += 1) {
      // A new order each round: work a request leaves after its answer (and the outbox worker's
      // send) slows whichever request comes next, and a fixed order would charge it to one path.
      for (const [path, send] of shuffled(Object.entries(paths))) {
        if (GAP_MS > 0) await new Promise((resolve) => setTimeout(resolve, GAP_MS));
        const ms = await send();
        if (round >= WARMUP) times[path].push(ms);
      }
    }
    const median = (path: string) => quantile(times[path], 0.5);
    for (const path of Object.keys(paths)) {
      console.log(`${path.padEnd(22)} median ${median(path).toFixed(3)} ms  p90 ${quantile(times[path], 0.9).toFixed(3)} ms  (${times[path].length} requests)`);
    }
    console.log(
      `known/unknown median ratio: reset ${(median('reset, known') / median('reset, unknown')).toFixed(3)}, magic link ${(median('magic link, known') / median('magic link, unknown')).toFixed(3)}`,
    );
  } finally {
    await api.stop();
    await dropDatabase(database);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
