import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { importCycles, importGraph, sourceFiles, workspaceSources } from './import-graph';

const ROOT = join(__dirname, '..', '..');

// A module that imports, even for a type only, a module that imports it back cannot be read,
// tested or moved alone, and the order the two load in decides what each sees at import. The
// whole workspace is one graph: `@svc/*` imports land on the other package's sources, so a loop
// through two packages is caught too.
describe('import graph of every package', () => {
  const sources = workspaceSources(ROOT);
  const files = sources.flatMap(sourceFiles);
  const graph = importGraph(files);

  it('covers the sources of every package and app', () => {
    const checked = sources.map((src) => relative(ROOT, src).split(sep).slice(0, 2).join('/'));
    expect(checked).toEqual(expect.arrayContaining(['packages/core', 'packages/adapters-typeorm', 'packages/sdk', 'apps/api', 'apps/proxy']));
    expect(files.length).toBeGreaterThan(300);
    // Resolved across packages: the API's composition root reaches core through `@svc/core`.
    const container = files.find((file) => file.endsWith(join('apps', 'api', 'src', 'composition', 'container.ts')))!;
    expect(graph.get(container)).toContain(join(ROOT, 'packages', 'core', 'src', 'index.ts'));
  });

  it('has no import cycle, type-only imports and re-exports included', () => {
    expect(importCycles(graph, ROOT)).toEqual([]);
  });
});

// The API's folders depend one way: composition/ builds http/'s app; cli/ drives both; http/
// knows neither, so the HTTP layer can be mounted over any set of dependencies (docs/architecture.md).
describe('apps/api/src by role', () => {
  const API = join(ROOT, 'apps', 'api', 'src');
  const graph = importGraph(sourceFiles(API));
  const folderOf = (file: string) => relative(API, file).split(sep)[0];
  const crossings = (from: string, forbidden: string[]) =>
    [...graph].flatMap(([file, targets]) =>
      folderOf(file) !== from ? [] : targets.filter((target) => forbidden.includes(folderOf(target))).map((target) => `${relative(API, file)} -> ${relative(API, target)}`),
    );

  it('http/ imports nothing from composition/ or cli/', () => {
    expect([...graph.keys()].filter((file) => folderOf(file) === 'http').length).toBeGreaterThan(50);
    expect(crossings('http', ['composition', 'cli'])).toEqual([]);
  });

  it('composition/ imports nothing from cli/', () => {
    expect(crossings('composition', ['cli'])).toEqual([]);
  });
});

describe('the cycle finder', () => {
  let dir: string;
  const write = (name: string, text: string) => {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-import-graph-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names a loop made of a type-only import and a re-export', () => {
    write('a.ts', "import type { B } from './b';\nexport interface A { b: B }\n");
    write('b.ts', "export type { A } from './a';\nexport interface B { n: number }\n");
    write('c.ts', "import { readFileSync } from 'node:fs';\nimport type { A } from './a';\nexport const read = readFileSync;\nexport type C = A;\n");
    expect(importCycles(importGraph(sourceFiles(dir)), dir)).toEqual(['a.ts -> b.ts -> a.ts']);
  });

  it('follows folders, index files, import() and require(), and counts the rest of a larger loop', () => {
    write('app.ts', "import { one } from './routes';\nexport const app = one;\n");
    write('routes/index.ts', "export * from './one';\nexport { two } from './two';\n");
    write('routes/one.ts', "import type { app } from '../app';\nexport const one = 1;\n");
    write('routes/two.ts', "export const two = () => import('../app');\nexport const three = () => require('../app');\n");
    expect(importCycles(importGraph(sourceFiles(dir)), dir)).toEqual(['app.ts -> routes/index.ts -> routes/one.ts -> app.ts (and 1 more file(s) in the same loop)']);
  });

  it('finds nothing in a graph without loops', () => {
    write('a.ts', "import { b } from './b';\nexport const a = b;\n");
    write('b.ts', 'export const b = 1;\n');
    expect(importCycles(importGraph(sourceFiles(dir)), dir)).toEqual([]);
  });
});
