import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * TypeScript samples of README.md, docs/*.md and the published packages' READMEs, each made a
 * module the consumer test type-checks against the packed packages. Every ```ts or ```typescript
 * block is one sample.
 *
 * A sample that is part of a program (it uses `req`, `svc` or `SVC_URL` from around it) names
 * what it assumes in an HTML comment right above its fence, which Markdown does not show:
 *
 *   <!-- sample-preamble
 *   import type { Request } from 'express';
 *   declare const req: Request;
 *   -->
 *
 * The preamble's lines go before the sample's. There is no way to skip a sample: one that cannot
 * compile is wrong, or needs a preamble.
 *
 * A sample is compiled with Node's module resolution (`nodenext`), except a Next.js one (it
 * imports `next/...`): Next.js compiles an app with its bundler's (`bundler`, as in the
 * tsconfig.json it creates), and `next/server` resolves only so.
 */
export interface DocSample {
  /** `README.md:212` (the fence's line). */
  where: string;
  /** File name for the module: `README.md-212.mts`. */
  file: string;
  source: string;
  resolution: 'nodenext' | 'bundler';
}

const NEXT_IMPORT = /^\s*import\b[^;]*?\bfrom\s+['"]next(\/[^'"]*)?['"]/m;

const FENCE = /^(\s*)```(\w*)\s*$/;
const PREAMBLE = /<!--\s*sample-preamble\s*\n([\s\S]*?)-->\s*$/;

/** @param packageReadmes folders of the published packages, relative to `root` (`packages/sdk`). */
export function docSamples(root: string, packageReadmes: string[]): DocSample[] {
  const documents = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
    ...packageReadmes.map((pkg) => `${pkg}/README.md`),
  ];
  return documents.flatMap((document) => samplesOf(document, readFileSync(join(root, document), 'utf8')));
}

function samplesOf(document: string, text: string): DocSample[] {
  const lines = text.split('\n');
  const samples: DocSample[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const indent = open[1];
    let end = i + 1;
    while (end < lines.length && !(FENCE.test(lines[end]) && FENCE.exec(lines[end])![2] === '')) end += 1;
    if (open[2] === 'ts' || open[2] === 'typescript') {
      const code = lines.slice(i + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line));
      const before = lines.slice(Math.max(0, i - 40), i).join('\n');
      const at = before.lastIndexOf('<!-- sample-preamble');
      const preamble = at >= 0 ? (PREAMBLE.exec(before.slice(at))?.[1] ?? '') : '';
      const where = `${document}:${i + 1}`;
      const source = `// ${where}\n${preamble}${code.join('\n')}\nexport {};\n`;
      const resolution = NEXT_IMPORT.test(source) ? 'bundler' : 'nodenext';
      samples.push({ where, file: `${document.replace(/\//g, '-')}-${i + 1}.mts`, source, resolution });
    }
    i = end;
  }
  return samples;
}
