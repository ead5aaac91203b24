import { createRequire } from 'node:module';
import { randomBytes, scrypt } from 'node:crypto';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { round } from './load';
import { ROOT } from './processes';

/** A password-hash ceiling: operations per second with the pool full, and one operation alone. */
export interface HashCeiling {
  name: string;
  perSecond: number;
  /** Median time of one operation with nothing else running (the floor of a sign-in's latency). */
  singleMs: number;
  parallel: number;
}

// The bcrypt the API uses (a dependency of the crypto adapter, not of the root).
const bcrypt = createRequire(join(ROOT, 'packages/adapters-crypto/package.json'))('bcrypt') as {
  hash(data: string, cost: number): Promise<string>;
  compare(data: string, hash: string): Promise<boolean>;
};

/** libuv's pool: bcrypt and scrypt both run there, so as many at once as it has threads. */
export const POOL_SIZE = Number(process.env.UV_THREADPOOL_SIZE ?? 4);

/** better-auth 1.7's scrypt parameters (@better-auth/utils/password.node: N 16384, r 16, p 1, 64 bytes). */
const SCRYPT = { N: 16384, r: 16, p: 1, maxmem: 128 * 16384 * 16 * 2 };

export async function bcryptCompareCeiling(cost: number, seconds: number): Promise<HashCeiling> {
  const hash = await bcrypt.hash('correct horse battery staple', cost);
  return measure(`bcrypt compare (cost ${cost})`, seconds, () => bcrypt.compare('correct horse battery staple', hash).then(() => undefined));
}

export function bcryptHashCeiling(cost: number, seconds: number): Promise<HashCeiling> {
  return measure(`bcrypt hash (cost ${cost})`, seconds, () => bcrypt.hash(randomBytes(12).toString('base64'), cost).then(() => undefined));
}

export function scryptCeiling(seconds: number): Promise<HashCeiling> {
  const salt = randomBytes(16).toString('hex');
  return measure(
    'scrypt (N=16384, r=16, p=1)',
    seconds,
    () => new Promise<void>((resolve, reject) => scrypt('correct horse battery staple', salt, 64, SCRYPT, (error) => (error ? reject(error) : resolve()))),
  );
}

/**
 * One bcrypt compare at a time for `seconds` (after one untimed): each compare's time in ms, in
 * order. The floor of a login's answer at one connection, taken in turn with it (login-alone.ts).
 */
export async function bcryptComparesAlone(cost: number): Promise<(seconds: number) => Promise<number[]>> {
  const hash = await bcrypt.hash('correct horse battery staple', cost);
  const compare = () => bcrypt.compare('correct horse battery staple', hash).then(() => undefined);
  await compare();
  return (seconds) => timesAlone(compare, performance.now() + seconds * 1000, 3);
}

/** Times of `operation` run one at a time until `until` (performance.now()), at least `least` of them. */
async function timesAlone(operation: () => Promise<void>, until: number, least: number, most = Number.POSITIVE_INFINITY): Promise<number[]> {
  const times: number[] = [];
  while (times.length < least || (performance.now() < until && times.length < most)) {
    const t0 = performance.now();
    await operation();
    times.push(performance.now() - t0);
  }
  return times;
}

/** `POOL_SIZE` loops of async operations for `seconds`, after one untimed warm-up; then 3+ alone. */
async function measure(name: string, seconds: number, operation: () => Promise<void>): Promise<HashCeiling> {
  await operation();
  let done = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: POOL_SIZE }, async () => {
      while (performance.now() < deadline) {
        await operation();
        done += 1;
      }
    }),
  );
  const perSecond = done / ((performance.now() - started) / 1000);
  const times = await timesAlone(operation, performance.now() + 1000, 3, 15);
  times.sort((a, b) => a - b);
  return { name, perSecond: round(perSecond), singleMs: round(times[Math.floor(times.length / 2)]), parallel: POOL_SIZE };
}

export const cores = availableParallelism();
