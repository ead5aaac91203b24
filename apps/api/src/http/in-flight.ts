/**
 * The things in flight through a long-lived owner (the requests a drain waits for, the jobs left
 * after an answer): added when they start, removed when they end, counted and listed at shutdown.
 *
 * A doubly linked list rather than a Set or a Map, for the young generation's sake. Such a
 * collection lives in V8's old generation, and its size swings between none and a few dozen
 * entries, so V8 rebuilds its table again and again. Each table it leaves behind keeps its
 * entries and a pointer to the table that replaced it. Once one of those tables sits in the old
 * generation, every later table and every request they ever held stays alive through each
 * scavenge, until the next full collection: 4 to 6 MB of finished requests copied or promoted per
 * scavenge under load (bench/README.md, "Round 17"). Here, an entry that ends forgets its value
 * and its neighbours, so an ended entry that lingers in the old generation holds nothing.
 */
export class InFlight<T> {
  private head: Entry<T> | null = null;
  private tail: Entry<T> | null = null;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds `value` at the end; the entry is what `delete` takes back. */
  add(value: T): InFlightEntry<T> {
    const entry: Entry<T> = { value, previous: this.tail, next: null, listed: true };
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
    this.count += 1;
    return entry;
  }

  /** Removes `entry`; false when it was removed already. */
  delete(entry: InFlightEntry<T>): boolean {
    const own = entry as Entry<T>;
    if (!own.listed) return false;
    if (own.previous) own.previous.next = own.next;
    else this.head = own.next;
    if (own.next) own.next.previous = own.previous;
    else this.tail = own.previous;
    own.previous = null;
    own.next = null;
    own.value = undefined;
    own.listed = false;
    this.count -= 1;
    return true;
  }

  /** The values in flight now, in the order they were added. */
  values(): T[] {
    const values: T[] = [];
    for (let entry = this.head; entry; entry = entry.next) values.push(entry.value as T);
    return values;
  }
}

/** An entry of an {@link InFlight}, as `add` answers it: opaque outside this module. */
export interface InFlightEntry<T> {
  readonly value: T | undefined;
}

interface Entry<T> {
  value: T | undefined;
  previous: Entry<T> | null;
  next: Entry<T> | null;
  listed: boolean;
}
