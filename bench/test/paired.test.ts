import { firstOfPair, pairedSummary } from '../lib/paired';

describe('paired answer times', () => {
  it('alternate which side goes first', () => {
    expect([0, 1, 2, 3].map(firstOfPair)).toEqual(['a', 'b', 'a', 'b']);
  });

  it("find what B costs over A in pairs that drift together, where the sides' own percentiles cannot", () => {
    // The machine slows down through the run (10 to 29 ms); B always takes 1.5 ms more than A in
    // the same pair, and one pair of B met a stall.
    const a = Array.from({ length: 20 }, (_, i) => 10 + i);
    const b = a.map((ms, i) => (i === 7 ? ms + 40 : ms + 1.5));
    const summary = pairedSummary({ a, b });
    expect(summary.medianPairDifferenceMs).toBe(1.5);
    expect(summary.a).toEqual({ p50: 19, p90: 27, p99: 29 });
    // The stall moves B's median by a rank: the p50s differ by 2.5 ms, the pairs by 1.5.
    expect(summary.b.p50).toBe(21.5);
    expect(summary.b.p99).toBe(57);
    expect(summary.p50RatioBOverA).toBe(1.132);
  });

  it('refuses sides of different lengths, or none', () => {
    expect(() => pairedSummary({ a: [1, 2], b: [1] })).toThrow(/same number/);
    expect(() => pairedSummary({ a: [], b: [] })).toThrow(/same number/);
  });
});
