import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

// docs/architecture.md: core imports no framework, driver or I/O. The only module outside core it may
// import is node:crypto, for pure digests. Anything else here fails the build.
const ALLOWED_EXTERNAL = new Set(['node:crypto']);
const SRC = join(__dirname, '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

function importedModules(source: string): string[] {
  const specifiers: string[] = [];
  const patterns = [/\bfrom\s+['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /^\s*import\s+['"]([^'"]+)['"]/gm];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) specifiers.push(match[1]);
  return specifiers;
}

describe('packages/core stays free of I/O and frameworks', () => {
  const files = sourceFiles(SRC);

  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it('imports only relative modules and node:crypto', () => {
    const offending = files.flatMap((file) =>
      importedModules(readFileSync(file, 'utf8'))
        .filter((spec) => !spec.startsWith('.') && !ALLOWED_EXTERNAL.has(spec))
        .map((spec) => `${relative(SRC, file)} imports ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it('the checker itself catches a forbidden import', () => {
    const sample = "import { DataSource } from 'typeorm';\nconst x = require('pg');\nimport('express');";
    expect(importedModules(sample).sort()).toEqual(['express', 'pg', 'typeorm']);
  });

  it('declares no runtime dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
    expect(pkg.dependencies ?? {}).toEqual({});
  });
});
