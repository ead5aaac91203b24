/**
 * A first-in, first-out async mutex.
 *
 * Why: TypeORM's better-sqlite3 driver has exactly ONE connection. Two transactions started from
 * concurrent requests would run on that one connection and interleave at every `await`, so one
 * request's statements would land inside (and commit or roll back with) another's transaction.
 * Running every SQLite unit of work through this mutex makes them strictly one after another.
 */
export class SqliteMutex {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` once every earlier call has settled; resolves or rejects with its outcome. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    // The chain must survive a failed unit of work, so the tail swallows its rejection.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
