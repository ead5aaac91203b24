// `tsx bench/medians.ts run1.json run2.json ...`: the targets are medians, and one run on
// this shared 2-core VM is one sample. This takes the median of every figure across the runs
// (each row's req/s, p50, p99 and ratio to its own run's ceiling; the hash ceilings; the mixed
// and 1M rows), judges the targets on those medians with the same code as a run, and prints the
// summary table and each target's per-run values.
import { basename } from 'node:path';
import { medianMemory, medianStartup } from './lib/built';
import type { BenchResults } from './lib/context';
import type { LoadResult } from './lib/load';
import { median, round } from './lib/load';
import { medianLoginAlone } from './lib/login-alone';
import { medianResult, medianRows } from './lib/median-rows';
import { summaryMarkdown } from './lib/report';
import { readStoredRun } from './lib/stored-run';
import { judgeTargets } from './lib/targets';

const files = process.argv.slice(2);
if (files.length < 2) {
  console.error('usage: tsx bench/medians.ts <run.json> <run.json> [...]');
  process.exit(2);
}
const runs = files.map(readStoredRun);

const first = runs[0];
const ceilings = Object.fromEntries(
  Object.keys(first.ceilings).map((name) => {
    const all = runs.map((run) => run.ceilings[name]).filter(Boolean);
    return [name, { ...all[0], perSecond: round(median(all.map((c) => c.perSecond))), singleMs: round(median(all.map((c) => c.singleMs))) }];
  }),
);
const sweep = Object.fromEntries(
  Object.keys(first.sweep).map((name) => {
    const points = first.sweep[name].map((point) => medianResult(runs.map((run) => run.sweep[name]?.find((p) => p.connections === point.connections)).filter((p): p is LoadResult => p !== undefined)));
    return [name, points];
  }),
);
const withMixed = runs.filter((run) => run.mixed);
const withMillion = runs.filter((run) => run.million);
const merged: BenchResults = {
  ...first,
  date: runs.map((run) => run.date).sort()[runs.length - 1],
  label: `median of ${runs.length} runs (${files.map((file) => basename(file, '.json')).join(', ')})`,
  machine: {
    ...first.machine,
    loadBefore: [median(runs.map((run) => run.machine.loadBefore[0])), 0, 0],
    cpuBusyBefore: runs.every((run) => run.machine.cpuBusyBefore !== undefined) ? median(runs.map((run) => run.machine.cpuBusyBefore!)) : undefined,
    busy: false,
  },
  ceilings,
  rows: medianRows(runs.map((run) => run.rows)),
  sweep,
  mixed: withMixed.length ? { login: medianResult(withMixed.map((run) => run.mixed!.login)), me: medianResult(withMixed.map((run) => run.mixed!.me)) } : undefined,
  loginAlone: medianLoginAlone(runs.map((run) => run.loginAlone)),
  million: withMillion.length
    ? {
        users: withMillion[0].million!.users,
        seedSeconds: round(median(withMillion.map((run) => run.million!.seedSeconds))),
        rows: medianRows(withMillion.map((run) => run.million!.rows)),
        baseline: withMillion.every((run) => run.million!.baseline) ? medianRows(withMillion.map((run) => run.million!.baseline!)) : undefined,
        // Said only when every run took the same number of slices (rounds before 23 took none).
        slices: withMillion.every((run) => run.million!.slices === withMillion[0].million!.slices) ? withMillion[0].million!.slices : undefined,
      }
    : undefined,
  startup: medianStartup(runs),
  memory: medianMemory(runs),
  targets: [],
  notes: [],
};
merged.targets = judgeTargets(merged);

console.log(summaryMarkdown(merged));
console.log('\nEach target per run (in the order given):\n');
console.log(`| target | ${runs.map((run) => run.label).join(' | ')} |`);
console.log(`| --- | ${runs.map(() => '---').join(' | ')} |`);
const perRun = runs.map((run) => judgeTargets(run));
for (const [i, target] of merged.targets.entries()) {
  const cells = perRun.map((targets) => {
    const own = targets[i];
    return own ? `${own.measured}${own.met === false ? ' **no**' : ''}` : 'n/a';
  });
  console.log(`| ${target.target.replace(/\(\d[\d.]* ms\)/, "(its run's)")} | ${cells.join(' | ')} |`);
}
