import { readFileSync } from 'node:fs';
import { dividedBy, type BenchResults, type RowRecord } from './context';
import { judgeTargets } from './targets';

/**
 * A run stored in bench/results, with every row's ratio divided again from the row's own stored
 * figures and the targets judged again on them. Runs taken before 2026-11-28 kept the
 * password-reset row's ratio to the first measurement of a ceiling that was measured higher at the
 * end of the run, though they stored the higher ceiling (bench/README.md, round 19); read through
 * here, their tables, medians and verdicts come out right.
 */
export function readStoredRun(file: string): BenchResults {
  const run = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
  const rows = (list: RowRecord[]) => list.map((row) => (row.ceiling ? { ...row, ...dividedBy(row.ceiling, row.result) } : row));
  const million = run.million && { ...run.million, rows: rows(run.million.rows), ...(run.million.baseline ? { baseline: rows(run.million.baseline) } : {}) };
  const redivided: BenchResults = { ...run, rows: rows(run.rows), ...(million ? { million } : {}) };
  return { ...redivided, targets: judgeTargets(redivided) };
}
