import { execFile } from 'node:child_process';
import { getHeapSpaceStatistics } from 'node:v8';

type Collector = (options?: { type: 'minor' | 'major' }) => void;

/**
 * How many bytes of V8's old generation each call of `call` leaves behind once its promise has
 * settled and two young-generation collections have run: what finished work keeps alive until the
 * next full collection.
 *
 * A function literal assigned to a property (`job.ondone = (error, result) => ...`) is allocated
 * straight into the old generation. Once it is dead, the young objects it reaches still count as
 * live in every young collection until a full one, so a settled promise it reaches, and that
 * promise's value, are copied and then promoted (docs/decisions.md, "What a finished request
 * leaves behind"). Work that keeps its young objects out of such closures leaves about the size of
 * the closures themselves; work that does not leaves hundreds of bytes more.
 *
 * Runs only where `gc` is exposed: in a process started by `measureInFreshProcess`.
 */
export async function oldGenerationBytesPerCall(call: (index: number) => Promise<unknown>, calls = 2000): Promise<number> {
  const gc = (globalThis as { gc?: Collector }).gc;
  if (typeof gc !== 'function') throw new Error('oldGenerationBytesPerCall needs a process started with --expose-gc');
  for (let index = 0; index < 50; index += 1) await call(index); // warmed up: modules loaded, caches filled
  gc({ type: 'major' });
  await macrotask();
  const before = oldGenerationUsed();
  for (let index = 0; index < calls; index += 1) await call(index);
  await macrotask();
  gc({ type: 'minor' });
  gc({ type: 'minor' }); // what the first copied within the young generation, the second promotes
  return Math.round((oldGenerationUsed() - before) / calls);
}

/**
 * Runs `script` (TypeScript, through tsx) in a fresh Node with `gc` exposed and only V8's
 * interpreter, and parses the JSON it prints. A fresh process, because a test runner's own heap and
 * its sandboxed modules blur what one kind of call leaves behind; the interpreter only, because
 * the optimizing compilers may or may not keep the old-generation hint of a hot closure, depending
 * on what they inlined, while the interpreter always does, so the measure says the same every run.
 */
export async function measureInFreshProcess<T>(script: string, env: Record<string, string> = {}): Promise<T> {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--expose-gc', '--max-opt=0', '--import', 'tsx', script], { env: { ...process.env, ...env, NODE_OPTIONS: '' }, timeout: 60_000 }, (error, out, err) =>
      error ? reject(new Error(`${script} failed: ${err || error.message}`)) : resolve(out),
    ),
  );
  return JSON.parse(stdout) as T;
}

function oldGenerationUsed(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0;
}

function macrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
