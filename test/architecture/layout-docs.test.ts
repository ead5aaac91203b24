import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * The tree in docs/architecture.md's "How the code is laid out": one entry a line, two spaces of
 * indent per folder level, names (comma-separated) then two spaces and what they are. Answers each
 * folder named there with the entries the document lists in it.
 */
function documentedTree(markdown: string): Map<string, string[]> {
  const section = markdown.split('## How the code is laid out')[1]?.split('\n## ')[0] ?? '';
  const block = /```\n(apps\/api\/src\/\n[\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/architecture.md: no apps/api/src/ tree in "How the code is laid out"');
  const tree = new Map<string, string[]>();
  const parents: string[] = [];
  for (const line of block.trimEnd().split('\n')) {
    const depth = (line.length - line.trimStart().length) / 2;
    const names = line.trim().split(/ {2,}/)[0].split(', ');
    const parent = depth === 0 ? '' : parents[depth - 1];
    for (const name of names) {
      const path = parent + name;
      if (depth > 0) tree.set(parent, [...(tree.get(parent) ?? []), name]);
      if (name.endsWith('/')) parents[depth] = path;
    }
  }
  return tree;
}

describe('docs/architecture.md "How the code is laid out" matches apps/api/src', () => {
  const tree = documentedTree(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));

  it('lists the top of apps/api/src and its three folders', () => {
    expect(tree.get('apps/api/src/')).toEqual(expect.arrayContaining(['index.ts', 'main.ts', 'http/', 'composition/', 'cli/']));
    expect([...tree.keys()]).toEqual(expect.arrayContaining(['apps/api/src/http/', 'apps/api/src/composition/', 'apps/api/src/cli/']));
  });

  it('names only what exists', () => {
    const missing = [...tree].flatMap(([folder, names]) => names.map((name) => folder + name)).filter((path) => !existsSync(join(ROOT, path)));
    expect(missing).toEqual([]);
  });

  it('names everything in each folder whose contents it lists', () => {
    const unnamed = [...tree].flatMap(([folder, names]) =>
      readdirSync(join(ROOT, folder), { withFileTypes: true })
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .filter((name) => !names.includes(name))
        .map((name) => folder + name),
    );
    expect(unnamed).toEqual([]);
  });

  it('the reader of the tree understands nesting and lists', () => {
    const sample = '## How the code is laid out\n\n```\napps/api/src/\n  a.ts  one\n  b/  two\n    c.ts, d.ts  three\n  e.ts  four\n```\n';
    expect(documentedTree(sample)).toEqual(
      new Map([
        ['apps/api/src/', ['a.ts', 'b/', 'e.ts']],
        ['apps/api/src/b/', ['c.ts', 'd.ts']],
      ]),
    );
  });
});

describe('docs/architecture.md "How the code is laid out" names the folders of core and of the workspace', () => {
  const section =
    readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8')
      .split('## How the code is laid out')[1]
      ?.split('\n## ')[0] ?? '';
  const paragraphs = section.split('\n\n');
  const folders = (text: string) => [...text.matchAll(/`([a-z-]+(?:\/[a-z-]+)*\/)`/g)].map((match) => match[1]);

  it('names every folder of packages/core/src, and only those', () => {
    const core = section.split('`packages/core/src` is split into')[1]?.split(';')[0] ?? '';
    const named = folders(core);
    const actual = readdirSync(join(ROOT, 'packages', 'core', 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${entry.name}/`);
    expect(named.sort()).toEqual(actual.sort());
  });

  it('names only workspace folders that exist', () => {
    const beside = paragraphs.find((paragraph) => paragraph.startsWith('Beside the packages'))!;
    const named = folders(beside);
    expect(named).toEqual(expect.arrayContaining(['bench/', 'test/architecture/', 'scripts/']));
    expect(named.filter((name) => !existsSync(join(ROOT, name)))).toEqual([]);
  });
});
