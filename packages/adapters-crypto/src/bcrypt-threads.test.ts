import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { BcryptThreads, defaultHashThreads } from './bcrypt-threads';

/** The nice value of each thread of this process (field 19 of /proc/self/task/<tid>/stat). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      return [Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16])];
    } catch {
      return []; // the thread ended while being read
    }
  });
}

/** Runs `body` with UV_THREADPOOL_SIZE set to `value` (unset for undefined), then puts it back. */
async function withPoolSize(value: string | undefined, body: () => Promise<void>): Promise<void> {
  const saved = process.env.UV_THREADPOOL_SIZE;
  const set = (to: string | undefined) => {
    if (to === undefined) delete process.env.UV_THREADPOOL_SIZE;
    else process.env.UV_THREADPOOL_SIZE = to;
  };
  set(value);
  try {
    await body();
  } finally {
    set(saved);
  }
}

// Nice is per thread on Linux, which the service's images run on; elsewhere setPriority in a
// worker would lower the whole process, so the threads' priority is a Linux property only.
const onLinux = process.platform === 'linux' ? it : it.skip;

describe('BcryptThreads', () => {
  onLinux('runs its hash threads at nice 19 by default, and only those threads', async () => {
    const at19 = () => threadNices().filter((nice) => nice === 19).length;
    const before = at19();
    const ownNice = threadNices()[0];
    const threads = new BcryptThreads({ threads: 1 });
    expect(await threads.compare('password', await threads.hash('password', 4))).toBe(true);
    expect(at19()).toBe(before + 1);
    // The main thread keeps its priority.
    expect(threadNices()[0]).toBe(ownNice);
  });

  onLinux('starts no more hash threads than the process may run at once, four at most', () =>
    withPoolSize(undefined, async () => {
      const at19 = () => threadNices().filter((nice) => nice === 19).length;
      const before = at19();
      const threads = new BcryptThreads();
      // Six hashes at once: every thread the pool may start is busy, and the rest wait in its queue.
      const hashes = await Promise.all(Array.from({ length: 6 }, () => threads.hash('password', 4)));
      expect(hashes.every((hash) => hash.startsWith('$2b$04$'))).toBe(true);
      expect(at19() - before).toBe(Math.min(4, availableParallelism()));
    }),
  );

  it("takes the libuv pool's size when UV_THREADPOOL_SIZE is set", () =>
    withPoolSize('7', async () => {
      expect(defaultHashThreads()).toBe(7);
    }));

  onLinux('takes another nice value when asked', async () => {
    const at = (value: number) => threadNices().filter((nice) => nice === value).length;
    const before = at(7);
    const threads = new BcryptThreads({ threads: 1, nice: 7 });
    await threads.hash('password', 4);
    expect(at(7)).toBe(before + 1);
  });
});
