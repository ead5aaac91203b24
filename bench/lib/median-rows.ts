import type { RowRecord } from './context';
import { median, round, type LoadResult } from './load';

/** The median of every figure of one row measured several times (runs, or slices of one run). */
export function medianResult(results: LoadResult[]): LoadResult {
  const of = (pick: (r: LoadResult) => number) => round(median(results.map(pick)));
  const middle: LoadResult = { ...results[0], rps: of((r) => r.rps), p50: of((r) => r.p50), p99: of((r) => r.p99), errors: of((r) => r.errors), requests: of((r) => r.requests) };
  // Mail rows: the answers' own rate and the wait for delivery, when every run has them.
  if (results.every((r) => r.answeredRps !== undefined && r.drainMs !== undefined)) {
    return { ...middle, answeredRps: of((r) => r.answeredRps!), drainMs: of((r) => r.drainMs!) };
  }
  const { answeredRps: _answered, drainMs: _drain, ...plain } = middle;
  return plain;
}

/** Rows present in every list that has any, matched by system and endpoint, each the median of its copies. */
export function medianRows(lists: RowRecord[][]): RowRecord[] {
  const present = lists.filter((list) => list.length > 0);
  if (present.length === 0) return [];
  return present[0].flatMap((first) => {
    const same = present.map((list) => list.find((row) => row.system === first.system && row.endpoint === first.endpoint)).filter((row): row is RowRecord => row !== undefined);
    if (same.length !== present.length) return [];
    const ratios = same.map((row) => row.ratio).filter((ratio): ratio is number => ratio !== undefined);
    const ceilings = same.map((row) => row.ceiling?.perSecond).filter((value): value is number => value !== undefined);
    return [
      {
        system: first.system,
        endpoint: first.endpoint,
        result: medianResult(same.map((row) => row.result)),
        ...(first.ceiling ? { ceiling: { name: first.ceiling.name, perSecond: round(median(ceilings)) } } : {}),
        ...(ratios.length === same.length && ratios.length > 0 ? { ratio: round(median(ratios), 3) } : {}),
        ...medianBeside(same),
      },
    ];
  });
}

/** The second ceiling of rows measured in turn with two (Bench.inTurn's `beside`), when every copy has it. */
function medianBeside(same: RowRecord[]): Pick<RowRecord, 'beside'> {
  const all = same.map((row) => row.beside);
  if (!all.every((beside): beside is NonNullable<RowRecord['beside']> => beside !== undefined)) return {};
  const answered = all.map((beside) => beside.ceilingAnswered).filter((value): value is number => value !== undefined);
  const shares = same.map((row, i) => (row.result.answeredRps === undefined ? undefined : row.result.answeredRps / all[i].perSecond)).filter((share): share is number => share !== undefined);
  return {
    beside: {
      name: all[0].name,
      perSecond: round(median(all.map((beside) => beside.perSecond))),
      slices: all.flatMap((beside) => beside.slices),
      ...(answered.length === all.length ? { ceilingAnswered: round(median(answered)) } : {}),
      ...(shares.length === all.length ? { answeredShare: round(median(shares), 3) } : {}),
    },
  };
}
