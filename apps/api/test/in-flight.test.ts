import { InFlight, type InFlightEntry } from '../src/http/in-flight';

// The list behind the drain's requests in flight and the jobs left after an answer.
describe('InFlight', () => {
  it('counts and lists what was added and not yet removed, in the order added, wherever it is removed from', () => {
    const list = new InFlight<string>();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((value) => list.add(value));
    expect(list.size).toBe(4);
    expect(list.values()).toEqual(['a', 'b', 'c', 'd']);
    expect(list.delete(b)).toBe(true); // from the middle
    expect(list.delete(d)).toBe(true); // the newest
    expect(list.values()).toEqual(['a', 'c']);
    expect(list.delete(a)).toBe(true); // the oldest
    expect(list.values()).toEqual(['c']);
    const e = list.add('e');
    expect(list.values()).toEqual(['c', 'e']);
    expect(list.delete(c)).toBe(true);
    expect(list.delete(e)).toBe(true);
    expect(list.size).toBe(0);
    expect(list.values()).toEqual([]);
  });

  it('removes an entry once: a second delete changes nothing and answers false', () => {
    const list = new InFlight<number>();
    const one = list.add(1);
    list.add(2);
    expect(list.delete(one)).toBe(true);
    expect(list.delete(one)).toBe(false);
    expect(list.size).toBe(1);
    expect(list.values()).toEqual([2]);
  });

  it('leaves a removed entry holding neither its value nor its neighbours', () => {
    // The point of the list: an entry that has ended keeps nothing alive, however long the entry
    // object itself lingers (in V8's old generation, until the next full collection).
    const list = new InFlight<{ name: string }>();
    list.add({ name: 'older' });
    const middle = list.add({ name: 'middle' });
    list.add({ name: 'newer' });
    list.delete(middle);
    const links = middle as InFlightEntry<{ name: string }> & { previous: unknown; next: unknown };
    expect(links.value).toBeUndefined();
    expect(links.previous).toBeNull();
    expect(links.next).toBeNull();
    expect(list.values().map((value) => value.name)).toEqual(['older', 'newer']);
  });
});
