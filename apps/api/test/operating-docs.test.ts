import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

// Every environment variable the shipped code reads appears in docs/operating.md. The
// code of apps/*/src and packages/*/src is searched (tests and test helpers are not shipped
// configuration): `process.env.X`, `process.env['X']`, `env.X`, `env['X']`, and the names the
// config loaders pass to their `read('X')` / `check('X', ...)` helpers.

const ROOT = resolve(__dirname, '../../..');

const READS = [/\b(?:process\.)?env\??\.([A-Z][A-Z0-9_]+)\b/g, /\b(?:process\.)?env\[['"]([A-Z][A-Z0-9_]+)['"]\]/g, /\b(?:read|check)\(\s*['"]([A-Z][A-Z0-9_]+)['"]/g];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'testing' || entry === 'node_modules' ? [] : sourceFiles(path);
    return /\.ts$/.test(entry) && !/\.test\.ts$/.test(entry) ? [path] : [];
  });
}

function variablesReadByCode(): Map<string, string> {
  const found = new Map<string, string>();
  for (const group of ['apps', 'packages']) {
    for (const name of readdirSync(join(ROOT, group))) {
      const src = join(ROOT, group, name, 'src');
      if (!statSync(join(ROOT, group, name)).isDirectory() || !safeIsDir(src)) continue;
      for (const file of sourceFiles(src)) {
        const text = readFileSync(file, 'utf8');
        for (const pattern of READS) for (const match of text.matchAll(pattern)) if (!found.has(match[1])) found.set(match[1], relative(ROOT, file));
      }
    }
  }
  return found;
}

function safeIsDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

describe('docs/operating.md', () => {
  const guide = readFileSync(join(ROOT, 'docs/operating.md'), 'utf8');
  const variables = variablesReadByCode();

  it('finds the configuration the code reads (the search itself works)', () => {
    for (const name of ['DATABASE_URL', 'SVC_MASTER_KEY', 'SVC_API_KEY', 'PROXY_PORT', 'SVC_API_URL', 'NODE_ENV', 'SVC_MIGRATE_ON_START']) {
      expect(variables.has(name)).toBe(true);
    }
  });

  it('documents every environment variable the code reads', () => {
    const missing = [...variables].filter(([name]) => !guide.includes(`\`${name}\``)).map(([name, file]) => `${name} (read in ${file})`);
    expect(missing).toEqual([]);
  });

  it('links the other guides', () => {
    for (const page of ['integration.md', 'security.md', 'architecture.md']) expect(guide).toContain(`(${page}`);
  });
});
