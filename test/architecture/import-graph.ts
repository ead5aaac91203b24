import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** `packages/*` and `apps/*` folders of the workspace that have a `src`. */
export function workspaceSources(root: string): string[] {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(root, group))
      .map((name) => join(root, group, name, 'src'))
      .filter((src) => existsSync(src) && statSync(src).isDirectory()),
  );
}

/** Every `.ts` file under `dir` except tests. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Each file's imports that land on another file of `files`: every `import`, `import type`,
 * `export ... from`, `import()` and `require()`, resolved by TypeScript's own module resolution
 * (so `@svc/core` lands on packages/core/src/index.ts through the workspace link). Imports of
 * anything outside `files` (libraries, Node built-ins) are left out.
 */
export function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      const resolved = ts.resolveModuleName(fileName, file, options, ts.sys).resolvedModule?.resolvedFileName;
      if (resolved && known.has(resolved) && resolved !== file) targets.add(resolved);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/**
 * The import cycles of `graph`, one per strongly connected component (Tarjan), each written as
 * a path that starts and ends on the same file, relative to `root`: `a.ts -> b.ts -> a.ts`, with
 * the count of the component's other files when it holds more than that one loop.
 */
export function importCycles(graph: Map<string, string[]>, root: string): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) components.push(component);
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return components.map((component) => {
    const cycle = cycleThrough(graph, new Set(component));
    const more = component.length - (cycle.length - 1);
    return cycle.map((file) => relative(root, file)).join(' -> ') + (more > 0 ? ` (and ${more} more file(s) in the same loop)` : '');
  });
}

/** One concrete cycle inside a strongly connected component, from its first file (by name) back to it. */
function cycleThrough(graph: Map<string, string[]>, component: Set<string>): string[] {
  const start = [...component].sort()[0];
  // Breadth-first from start, inside the component, until an edge leads back to start.
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const file = queue.shift()!;
    for (const target of graph.get(file) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0])!);
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  throw new Error(`no cycle through ${start}`);
}
