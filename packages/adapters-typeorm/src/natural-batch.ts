import { unavailableReason } from './unavailable';

/**
 * How a {@link NaturalBatch} does its items' work: several in one statement, or one alone. `R` is
 * what each item's caller hears back: nothing for a write, the row found for a read.
 */
export interface BatchWork<T, R = void> {
  /** Does every item's work in one statement (all of it or none); one result per item, in the items' order. */
  many(items: readonly T[]): Promise<readonly R[]>;
  /** Does one item's work, as it would be done without the batch. */
  one(item: T): Promise<R>;
  /**
   * Items of the same key never share a statement: a statement sees the tables as they were
   * before it, so two items that each change what the other reads (a user's older tokens
   * superseded) would not see each other. Such an item waits for the next statement. Without
   * `keyOf` (reads) no two items conflict.
   */
  keyOf?(item: T): string;
  /** The most items one statement carries. */
  maxItems: number;
}

interface Waiting<T, R> {
  item: T;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/**
 * Work handed in while a statement is in flight waits, and goes together in the next one, as a
 * database's group commit does. Alone, an item is done at once, by `one`, exactly as without
 * the batch; under load, one statement, one round trip (and for writes one commit) carry many
 * (bench/README.md, rounds 32 and 33; docs/decisions.md, "Mail requests write in batches" and
 * "Lookups by address read in batches").
 *
 * Each caller still hears its own outcome. A statement that failed on one of its rows (a
 * constraint: the server undid all of it) is done again item by item, so that each caller
 * gets its own item's answer. A statement that failed because the database is unavailable
 * (`service_unavailable`: no answer in time, the connection lost, read-only, a lock or the
 * server's limits) is not: its outcome may be unknown (a statement without an answer may have
 * committed), and one by one they would meet the same database. Every caller hears that failure,
 * as a caller of `one` would.
 */
export class NaturalBatch<T, R = void> {
  private readonly waiting: Waiting<T, R>[] = [];
  private writing = false;

  constructor(private readonly writer: BatchWork<T, R>) {
    if (!(Number.isInteger(writer.maxItems) && writer.maxItems >= 1)) throw new RangeError('maxItems must be a positive integer');
  }

  /** Resolves with `item`'s result once its statement is done; rejects with what that statement failed with. */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.next();
    });
  }

  /** Starts the next statement unless one is in flight: the waiting items, oldest first, one per key. */
  private next(): void {
    if (this.writing || this.waiting.length === 0) return;
    const batch = this.take();
    this.writing = true;
    const written = batch.length === 1 ? this.alone(batch[0]) : this.together(batch);
    void written.finally(() => {
      this.writing = false;
      this.next();
    });
  }

  private take(): Waiting<T, R>[] {
    const writer = this.writer;
    if (!writer.keyOf) return this.waiting.splice(0, writer.maxItems);
    const batch: Waiting<T, R>[] = [];
    const keys = new Set<string>();
    for (let i = 0; i < this.waiting.length && batch.length < writer.maxItems; ) {
      const key = writer.keyOf(this.waiting[i].item);
      if (keys.has(key)) {
        i += 1;
        continue;
      }
      keys.add(key);
      batch.push(...this.waiting.splice(i, 1));
    }
    return batch;
  }

  private async alone(entry: Waiting<T, R>): Promise<void> {
    try {
      entry.resolve(await this.writer.one(entry.item));
    } catch (error) {
      entry.reject(error);
    }
  }

  private async together(batch: Waiting<T, R>[]): Promise<void> {
    let results: readonly R[];
    try {
      results = await this.writer.many(batch.map((entry) => entry.item));
    } catch (error) {
      if (unavailableReason(error) !== null) {
        for (const entry of batch) entry.reject(error);
        return;
      }
      // Refused by the server: nothing was done. Each item again, alone, to its own answer.
      await Promise.all(batch.map((entry) => this.alone(entry)));
      return;
    }
    if (results.length !== batch.length) {
      // A `many` that lost track of its items: nobody may hear another item's result.
      const mismatch = new Error(`a batch of ${batch.length} items answered ${results.length} results`);
      for (const entry of batch) entry.reject(mismatch);
      return;
    }
    batch.forEach((entry, i) => entry.resolve(results[i]));
  }
}
