import { median, percentile, round } from './load';

/**
 * The figures of `bench/paired-latency.ts`: answer times in ms of two APIs asked in turn, one
 * request at a time, `a[i]` and `b[i]` the two answers of pair `i`.
 */
export interface PairedTimes {
  a: number[];
  b: number[];
}

/** Which side pair `n` asks first: each pair starts with the other side than the last, so neither always goes first. */
export function firstOfPair(n: number): 'a' | 'b' {
  return n % 2 === 0 ? 'a' : 'b';
}

/**
 * Each side's p50, p90 and p99, B's p50 over A's, and the median of the pairs' differences
 * (B − A): what a change is worth when both sides met the same drift of the machine.
 */
export function pairedSummary(times: PairedTimes) {
  if (times.a.length === 0 || times.a.length !== times.b.length) throw new Error('paired times: both sides need the same number of answers, at least one');
  const side = (values: number[]) => {
    const sorted = [...values].sort((x, y) => x - y);
    return { p50: round(percentile(sorted, 0.5), 2), p90: round(percentile(sorted, 0.9), 2), p99: round(percentile(sorted, 0.99), 2) };
  };
  const a = side(times.a);
  const b = side(times.b);
  return {
    a,
    b,
    p50RatioBOverA: round(b.p50 / a.p50, 3),
    medianPairDifferenceMs: round(median(times.b.map((ms, i) => ms - times.a[i])), 2),
  };
}
