import { unavailableReason } from './unavailable';

/** How a {@link NaturalBatch} writes its items: several in one statement, or one alone. */
export interface BatchWriter<T> {
  /** Writes every item in one statement: all of them or none. */
  many(items: readonly T[]): Promise<void>;
  /** Writes one item, as it would be written without the batch. */
  one(item: T): Promise<void>;
  /**
   * Items of the same key never share a statement: a statement sees the tables as they were
   * before it, so two items that each change what the other reads (a user's older tokens
   * superseded) would not see each other. Such an item waits for the next statement.
   */
  keyOf(item: T): string;
  /** The most items one statement carries. */
  maxItems: number;
}

interface Waiting<T> {
  item: T;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Writes handed in while a statement is in flight wait, and go together in the next one, as a
 * database's group commit does. Alone, an item is written at once, by `one`, exactly as without
 * the batch; under load, one statement, one commit and one round trip carry many
 * (bench/README.md, round 32; docs/decisions.md, "Mail requests write in batches").
 *
 * Each caller still hears its own outcome. A statement that failed on one of its rows (a
 * constraint: the server undid all of it) is written again item by item, so that each caller
 * gets its own item's answer. A statement that failed because the database is unavailable
 * (`service_unavailable`: no answer in time, the connection lost, read-only, a lock or the
 * server's limits) is not: its outcome may be unknown (a statement without an answer may have
 * committed), and one by one they would meet the same database. Every caller hears that failure,
 * as a caller of `one` would.
 */
export class NaturalBatch<T> {
  private readonly waiting: Waiting<T>[] = [];
  private writing = false;

  constructor(private readonly writer: BatchWriter<T>) {
    if (!(Number.isInteger(writer.maxItems) && writer.maxItems >= 1)) throw new RangeError('maxItems must be a positive integer');
  }

  /** Resolves once `item` is written; rejects with what its statement failed with. */
  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
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

  private take(): Waiting<T>[] {
    const batch: Waiting<T>[] = [];
    const keys = new Set<string>();
    for (let i = 0; i < this.waiting.length && batch.length < this.writer.maxItems; ) {
      const key = this.writer.keyOf(this.waiting[i].item);
      if (keys.has(key)) {
        i += 1;
        continue;
      }
      keys.add(key);
      batch.push(...this.waiting.splice(i, 1));
    }
    return batch;
  }

  private async alone(entry: Waiting<T>): Promise<void> {
    try {
      await this.writer.one(entry.item);
      entry.resolve();
    } catch (error) {
      entry.reject(error);
    }
  }

  private async together(batch: Waiting<T>[]): Promise<void> {
    try {
      await this.writer.many(batch.map((entry) => entry.item));
    } catch (error) {
      if (unavailableReason(error) !== null) {
        for (const entry of batch) entry.reject(error);
        return;
      }
      // Refused by the server: nothing was written. Each item again, alone, to its own answer.
      await Promise.all(batch.map((entry) => this.alone(entry)));
      return;
    }
    for (const entry of batch) entry.resolve();
  }
}
