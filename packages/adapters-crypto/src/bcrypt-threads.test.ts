import { readdirSync, readFileSync } from 'node:fs';
import { BcryptThreads } from './bcrypt-threads';

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

  onLinux('takes another nice value when asked', async () => {
    const at = (value: number) => threadNices().filter((nice) => nice === value).length;
    const before = at(7);
    const threads = new BcryptThreads({ threads: 1, nice: 7 });
    await threads.hash('password', 4);
    expect(at(7)).toBe(before + 1);
  });
});
