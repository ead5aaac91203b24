import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

// Comments and docs stand alone: they explain in place or point at a file in this repository
// (docs/, the OpenAPI document). A maintainer has neither the design notes this code was first
// written against nor the issue tracker, so a pointer at either is a dead end. The patterns are
// assembled from pieces so that this file does not match itself.
const FORBIDDEN: { what: string; pattern: RegExp }[] = [
  { what: 'a section of the design notes', pattern: new RegExp(['DESIGN', '(?:\\.md|\\s*§|\\s+leaves)'].join('')) },
  { what: 'a rule of the style notes', pattern: new RegExp(['STYLE', '(?:\\.md|\\s+rule)'].join('')) },
  { what: 'a numbered contract endpoint', pattern: new RegExp(['\\bendpoints?', '\\s+\\d'].join(''), 'i') },
  { what: 'a numbered contract rule', pattern: new RegExp(['\\bcontract', '\\s+rules?\\s+\\d'].join(''), 'i') },
  { what: 'an issue number', pattern: new RegExp(['\\bissues?', '[\\s-]+#?\\d'].join(''), 'i') },
  { what: 'the contract document outside the repository', pattern: new RegExp(['service-api', '\\.md|shared', '/spec|\\.\\./', 'shared\\b'].join(''), 'i') },
];

/** Every forbidden reference in `text`, as `line: what`. */
function references(text: string): string[] {
  return text.split('\n').flatMap((line, index) => FORBIDDEN.filter(({ pattern }) => pattern.test(line)).map(({ what }) => `${index + 1}: ${what}`));
}

// Tracked text files; bench/results holds measurement output (JSON, SVG), not prose.
function trackedTextFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  return out
    .split('\0')
    .filter((file) => /\.(ts|tsx|js|mjs|cjs|md|yaml|yml|json|html|css|sh)$|(^|\/)Dockerfile[^/]*$/.test(file))
    .filter((file) => !file.startsWith('bench/results/') && file !== 'pnpm-lock.yaml');
}

describe('comments and docs refer only to what is in the repository', () => {
  it('finds the tracked sources, tests, scripts and docs', () => {
    const files = trackedTextFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/decisions.md', 'apps/api/openapi/openapi.yaml', 'scripts/test.mjs', 'bench/run.ts']));
    expect(files.length).toBeGreaterThan(400);
  });

  it('has no pointer at the design notes, the style notes, contract numbering or the issue tracker', () => {
    const found = trackedTextFiles().flatMap((file) => references(readFileSync(join(ROOT, file), 'utf8')).map((hit) => `${file}:${hit}`));
    expect(found).toEqual([]);
  });

  it('recognises each kind of reference, and not the standards code cites', () => {
    const design = ['DESIGN', ' §4a'].join('');
    const sample = [
      `secrets are hashed (${design})`,
      ['see STYLE', ' rule 9'].join(''),
      ['contract endpoint', ' 13'].join(''),
      ['Contract rule', ' 3 for keys'].join(''),
      ['// Issue', ' 8: the images'].join(''),
      ['shared', '/spec/service-api', '.md'].join(''),
      'RFC 6749 §3.1.2 forbids a fragment; WebAuthn §6.1.1 counters',
    ].join('\n');
    expect(references(sample)).toEqual([
      '1: a section of the design notes',
      '2: a rule of the style notes',
      '3: a numbered contract endpoint',
      '4: a numbered contract rule',
      '5: an issue number',
      '6: the contract document outside the repository',
    ]);
  });
});
