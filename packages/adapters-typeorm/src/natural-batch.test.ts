import { NaturalBatch, type BatchWork } from './natural-batch';
import { unavailable } from './unavailable';

// The batch on its own, with a writer that records its statements: what goes alone, what goes
// together, and what each caller hears when a statement fails.

interface Item {
  id: string;
  key: string;
}

/** A writer whose statements are recorded and left open until `finish` settles them. */
function recordingWriter(maxItems = 50) {
  const statements: { kind: 'many' | 'one'; ids: string[]; settle: (error?: unknown) => void }[] = [];
  const open = (kind: 'many' | 'one', items: readonly Item[]) =>
    new Promise<void>((resolve, reject) => statements.push({ kind, ids: items.map((item) => item.id), settle: (error) => (error === undefined ? resolve() : reject(error)) }));
  const writer: BatchWork<Item> = {
    many: (items) => open('many', items).then(() => items.map(() => undefined)),
    one: (item) => open('one', [item]),
    keyOf: (item) => item.key,
    maxItems,
  };
  return { writer, statements };
}

const item = (id: string, key = id): Item => ({ id, key });
/** Lets the promise callbacks run, so that the batch starts its next statement. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('NaturalBatch', () => {
  it('writes an item that arrives alone at once, by itself', async () => {
    const { writer, statements } = recordingWriter();
    const written = new NaturalBatch(writer).add(item('a'));
    expect(statements.map(({ kind, ids }) => ({ kind, ids }))).toEqual([{ kind: 'one', ids: ['a'] }]);
    statements[0].settle();
    await expect(written).resolves.toBeUndefined();
  });

  it('puts the items that arrive while a statement is in flight into the next one, oldest first', async () => {
    const { writer, statements } = recordingWriter();
    const batch = new NaturalBatch(writer);
    const first = batch.add(item('a'));
    const rest = ['b', 'c', 'd'].map((id) => batch.add(item(id)));
    // One statement at a time: b, c and d wait for a's.
    expect(statements).toHaveLength(1);
    statements[0].settle();
    await first;
    await turn();
    expect(statements.map(({ kind, ids }) => ({ kind, ids }))).toEqual([
      { kind: 'one', ids: ['a'] },
      { kind: 'many', ids: ['b', 'c', 'd'] },
    ]);
    let settled = 0;
    for (const written of rest) void written.then(() => settled++);
    await turn();
    expect(settled).toBe(0);
    statements[1].settle();
    await Promise.all(rest);
    expect(settled).toBe(3);
  });

  it('keeps items of one key apart, and a statement to its most items', async () => {
    const { writer, statements } = recordingWriter(2);
    const batch = new NaturalBatch(writer);
    const all = [batch.add(item('a')), batch.add(item('b', 'user-1')), batch.add(item('c', 'user-1')), batch.add(item('d')), batch.add(item('e'))];
    for (let i = 0; i < 3; i += 1) {
      statements[i].settle();
      await turn();
    }
    await Promise.all(all);
    expect(statements.map(({ ids }) => ids)).toEqual([['a'], ['b', 'd'], ['c', 'e']]);
  });

  it('writes the items of a statement the server refused again one by one, each caller hearing its own answer', async () => {
    const { writer, statements } = recordingWriter();
    const batch = new NaturalBatch(writer);
    const first = batch.add(item('a'));
    const b = batch.add(item('b'));
    const c = batch.add(item('c'));
    statements[0].settle();
    await first;
    await turn();
    statements[1].settle(new Error('duplicate key value violates unique constraint'));
    await turn();
    expect(statements.slice(2).map(({ kind, ids }) => ({ kind, ids }))).toEqual([
      { kind: 'one', ids: ['b'] },
      { kind: 'one', ids: ['c'] },
    ]);
    statements[2].settle();
    statements[3].settle(new Error('duplicate key value violates unique constraint'));
    await expect(b).resolves.toBeUndefined();
    await expect(c).rejects.toThrow('duplicate key');
  });

  it('does not write again a statement whose outcome is unknown: every caller hears that failure', async () => {
    const { writer, statements } = recordingWriter();
    const batch = new NaturalBatch(writer);
    const first = batch.add(item('a'));
    const rest = [batch.add(item('b')), batch.add(item('c'))];
    statements[0].settle();
    await first;
    await turn();
    const lost = unavailable('timeout', new Error('no answer within 5000 ms'));
    statements[1].settle(lost);
    for (const written of rest) await expect(written).rejects.toBe(lost);
    expect(statements).toHaveLength(2);
    // The batch goes on with the next item.
    const next = batch.add(item('d'));
    expect(statements[2]).toMatchObject({ kind: 'one', ids: ['d'] });
    statements[2].settle();
    await expect(next).resolves.toBeUndefined();
  });

  it("answers each caller of a read with its own item's result; without keys, equal items share a statement", async () => {
    const statements: { ids: string[]; answer: (results: readonly string[]) => void }[] = [];
    const reads = new NaturalBatch<Item, string>({
      many: (items) => new Promise((resolve) => statements.push({ ids: items.map((item) => item.id), answer: resolve })),
      one: (item) => new Promise((resolve) => statements.push({ ids: [item.id], answer: ([result]) => resolve(result) })),
      maxItems: 3,
    });
    const answers = ['a', 'b', 'b', 'c', 'd'].map((id) => reads.add(item(id, 'same-key')));
    statements[0].answer(['row-a']);
    await turn();
    expect(statements.map(({ ids }) => ids)).toEqual([['a'], ['b', 'b', 'c']]);
    statements[1].answer(['row-b', 'row-b2', 'row-c']);
    await turn();
    statements[2].answer(['row-d']);
    await expect(Promise.all(answers)).resolves.toEqual(['row-a', 'row-b', 'row-b2', 'row-c', 'row-d']);
  });

  it('rejects every caller of a statement that answered a different number of results, rather than misplace one', async () => {
    const statements: ((results: readonly string[]) => void)[] = [];
    const reads = new NaturalBatch<Item, string>({
      many: () => new Promise((resolve) => statements.push(resolve)),
      one: (entry) => Promise.resolve(`row-${entry.id}`),
      maxItems: 50,
    });
    // b and c arrive while a's statement is in flight, and go together.
    const first = reads.add(item('a'));
    const rest = [reads.add(item('b')), reads.add(item('c'))];
    await expect(first).resolves.toBe('row-a');
    await turn();
    statements[0](['row-b']);
    for (const answer of rest) await expect(answer).rejects.toThrow('a batch of 2 items answered 1 results');
  });

  it('refuses a size that cannot hold an item', () => {
    expect(() => new NaturalBatch({ ...recordingWriter().writer, maxItems: 0 })).toThrow(RangeError);
  });
});
