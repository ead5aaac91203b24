import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * bcrypt on threads of its own, at a lower CPU priority than the event loop (Linux nice is per
 * thread, so `os.setPriority` inside a worker lowers that worker only).
 *
 * Why: on the libuv pool, four busy bcrypt threads and the event loop get equal CPU shares. On a
 * 2-core machine under a burst of logins the event loop then gets about a third of a core, and
 * every other request (/me, refresh) queues behind it: bench/README.md measured /me p99 in the
 * hundreds of ms. Niced hash threads still take every idle cycle, so logins lose nothing when the
 * event loop has nothing to do, but yield at once when it has.
 *
 * The worker is plain JavaScript (`eval`), so it runs the same under tsx, jest and compiled code.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
try { require('node:os').setPriority(workerData.nice); } catch { /* not permitted: run at normal priority */ }
const bcrypt = require(workerData.bcryptPath);
parentPort.on('message', ({ op, data, arg }) => {
  try {
    parentPort.postMessage({ result: op === 'hash' ? bcrypt.hashSync(data, arg) : bcrypt.compareSync(data, arg) });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});`;

type Job = { op: 'hash'; data: string; arg: number } | { op: 'compare'; data: string; arg: string };
interface Pending {
  job: Job;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export interface BcryptThreadsOptions {
  /** How many hashes run at once; by default {@link defaultHashThreads}. */
  threads?: number;
  /**
   * Nice value of the hash threads (0..19). 19 by default: Linux weighs a nice-19 thread at 15
   * against the event loop's 1,024, so four busy hash threads take about 6 % beside it instead of
   * 30 % at 10; /me beside a saturated login pool answered 1.2-1.35x as many requests with a p99
   * 0.71-0.93x of nice 10's, for 0.83-0.85x the logins in that contention (bench/README.md, round 7).
   */
  nice?: number;
}

/**
 * `UV_THREADPOOL_SIZE` when it is set (the operator's one knob for both pools), else libuv's
 * default of 4 but no more threads than the process may run at once (`os.availableParallelism`).
 * A hash is CPU alone, so a thread beyond the cores adds no throughput, only its isolate: each
 * worker holds about 15 MB for the life of the process. On two cores two threads did as many
 * logins as four (8.35 and 8.3 a second, medians of six slices in turn), and the server idled at
 * about 110 MB after its first sign-ins instead of 138 (bench/README.md, round 26).
 */
export function defaultHashThreads(): number {
  return Number(process.env.UV_THREADPOOL_SIZE) || Math.min(4, availableParallelism());
}

export class BcryptThreads {
  private readonly threads: number;
  private readonly nice: number;
  private readonly idle: Worker[] = [];
  private readonly queue: Pending[] = [];
  /** Each worker runs one job at a time: the one recorded here. */
  private readonly busy = new Map<Worker, Pending>();
  private live = 0;

  constructor(options: BcryptThreadsOptions = {}) {
    this.threads = options.threads ?? defaultHashThreads();
    this.nice = options.nice ?? 19;
  }

  hash(data: string, cost: number): Promise<string> {
    return this.run({ op: 'hash', data, arg: cost }) as Promise<string>;
  }

  compare(data: string, hash: string): Promise<boolean> {
    return this.run({ op: 'compare', data, arg: hash }) as Promise<boolean>;
  }

  private run(job: Job): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.live < this.threads ? this.spawn() : undefined);
      if (!worker) return;
      const pending = this.queue.shift()!;
      this.busy.set(worker, pending);
      worker.ref(); // a hash under way keeps the process alive, as it does on the libuv pool
      worker.postMessage(pending.job);
    }
  }

  /** Workers start on first use (none at construction) and stay, unref'd while idle. */
  private spawn(): Worker {
    this.live += 1;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { nice: this.nice, bcryptPath: require.resolve('bcrypt') } });
    worker.on('message', (message: { result?: unknown; error?: string }) => {
      const pending = this.busy.get(worker);
      this.busy.delete(worker);
      worker.unref();
      this.idle.push(worker);
      if (message.error !== undefined) pending?.reject(new Error(message.error));
      else pending?.resolve(message.result);
      this.dispatch();
    });
    // A worker that dies fails the job it had and is replaced on demand; 'exit' follows 'error'.
    worker.once('exit', (code) => {
      this.live -= 1;
      const index = this.idle.indexOf(worker);
      if (index >= 0) this.idle.splice(index, 1);
      this.busy.get(worker)?.reject(new Error(`bcrypt worker exited with code ${code}`));
      this.busy.delete(worker);
      this.dispatch();
    });
    worker.on('error', () => undefined); // reported through 'exit'
    return worker;
  }
}
