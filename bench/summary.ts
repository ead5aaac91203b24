// `tsx bench/summary.ts bench/results/<run>.json`: rewrites the summary of bench/README.md from a
// stored run (one made with --no-readme, or an older one) as `pnpm bench` writes it, its ratios
// divided again from its figures and its targets judged on them (lib/stored-run.ts).
import { basename, join } from 'node:path';
import { ROOT } from './lib/processes';
import { summaryMarkdown, writeReadmeSummary } from './lib/report';
import { readStoredRun } from './lib/stored-run';

const file = process.argv[2];
if (!file) {
  console.error('usage: tsx bench/summary.ts <bench/results/run.json>');
  process.exit(2);
}
const results = readStoredRun(file);
const name = basename(file, '.json');
writeReadmeSummary(join(ROOT, 'bench', 'README.md'), summaryMarkdown(results), `Full results: [results/${name}.json](results/${name}.json); chart: [results/${name}.svg](results/${name}.svg).`);
console.log(`bench/README.md summary rewritten from ${file}`);
