// `tsx bench/compare.ts before.json after.json`: the rows two runs share, side by side (req/s, p99,
// ratio to the ceiling measured in the same run), as the Markdown table of bench/README.md.
import type { BenchResults, RowRecord } from './lib/context';
import { readStoredRun } from './lib/stored-run';

const [beforeFile, afterFile] = process.argv.slice(2);
if (!beforeFile || !afterFile) {
  console.error('usage: tsx bench/compare.ts <before.json> <after.json>');
  process.exit(2);
}
const before = readStoredRun(beforeFile);
const after = readStoredRun(afterFile);
const key = (row: RowRecord) => `${row.system} | ${row.endpoint}`;
const ratio = (row?: RowRecord) => (row?.ratio !== undefined ? `${(row.ratio * 100).toFixed(0)} %` : '');
const figure = (row?: RowRecord) => (row ? `${row.result.rps} req/s, p99 ${row.result.p99} ms` : 'n/a');

const lines = ['| system | endpoint | before | after | ratio before → after |', '| --- | --- | --- | --- | --- |'];
for (const row of after.rows) {
  if (!/^(svc|session proxy|mounted proxy)/.test(row.system)) continue;
  const old = before.rows.find((candidate) => key(candidate) === key(row));
  lines.push(`| ${key(row)} | ${figure(old)} | ${figure(row)} | ${ratio(old) || '—'} → ${ratio(row) || '—'} |`);
}
if (before.mixed && after.mixed) {
  const text = (r: BenchResults) => `/me ${r.mixed!.me.rps} req/s, p99 ${r.mixed!.me.p99} ms; logins ${r.mixed!.login.rps}/s`;
  lines.push(`| mixed | login c=16 + me c=10 | ${text(before)} | ${text(after)} | p99 ${before.mixed.me.p99} → ${after.mixed.me.p99} ms |`);
}
console.log(lines.join('\n'));
