/**
 * The order of two sides measured in turn, `slices` times each: a, b, b, a, a, b, b, a... (ABBA),
 * so that a drift of the machine during the comparison lands on both sides alike, and every pair
 * of slices (0-1, 2-3, ...) holds one of each. The 1M comparison takes its tenants in this order,
 * and each row judged against a ceiling takes itself and its ceiling in it (Bench.inTurn).
 */
export function turns<T>(slices: number, a: T, b: T): T[] {
  return Array.from({ length: 2 * slices }, (_, i) => ((i + (i >> 1)) % 2 === 0 ? a : b));
}
