import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, type Tarball } from './consumer-app';

/** Runs a command without blocking the event loop; answers its exit code and output. */
function runAsync(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string; stdout: string }> {
  // npm's settings from the environment (npx, .ci/run's npm_config_nodedir) stay out: npm warns
  // about some of them, and none concerns these tools.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_config_/i.test(name)));
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, env: { ...env, NODE_OPTIONS: '', FORCE_COLOR: '0', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('close', (code) => done({ code, output, stdout }));
  });
}

/** Maps `work` over `items`, at most `limit` at a time (the machine has two cores). */
export async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

/** publint's findings on a tarball, warnings counted as errors; [] when clean. */
export async function publintProblems(tarball: Tarball): Promise<string[]> {
  const { code, output } = await runAsync(bin('publint'), ['run', tarball.file, '--strict', '--level', 'suggestion'], ROOT);
  const findings = output.split('\n').filter((line) => /^\d+\. /.test(line.trim()));
  return code === 0 && findings.length === 0 ? [] : [`exit ${code}`, ...findings];
}

/**
 * Are the types wrong, for Node's resolution (import and require) and bundlers. The node10
 * resolution (TypeScript's `moduleResolution: node`, deprecated since TypeScript 6) cannot see
 * subpath exports, so it is left out (the "node16" profile). `@svc/client/browser` is an ES
 * module only; require() loads it on Node >= 20.19 (require of ES modules), which is all we support.
 */
export async function attwProblems(tarball: Tarball): Promise<unknown[]> {
  const runs: { args: string[]; allowed: string[] }[] =
    tarball.name === '@svc/client'
      ? [
          { args: ['--exclude-entrypoints', './browser'], allowed: [] },
          { args: ['--entrypoints', './browser'], allowed: ['CJSResolvesToESM'] },
        ]
      : [{ args: [], allowed: [] }];
  const problems: unknown[] = [];
  for (const { args: extra, allowed } of runs) {
    const { stdout, output } = await runAsync(bin('attw'), [tarball.file, '--profile', 'node16', '--format', 'json', '--no-definitely-typed', ...extra], ROOT);
    let report: { analysis?: { problems?: unknown[] } };
    try {
      report = JSON.parse(stdout);
    } catch {
      problems.push(`attw did not answer JSON: ${output.slice(0, 2000)}`);
      continue;
    }
    const found = (report.analysis?.problems ?? []) as { kind: string; resolutionKind?: string }[];
    problems.push(...found.filter((problem) => problem.resolutionKind !== 'node10' && !allowed.includes(problem.kind)));
  }
  return problems;
}

/** Warnings `npm publish --dry-run` prints whatever the package: no credentials here, and this machine's npmrc. */
const ENVIRONMENT_WARNINGS = [/requires you to be logged in/, /Unknown (user|global) config "nodedir"/];

/** `npm publish --dry-run` of the tarball: its exit code and any warning about the package itself. */
export async function publishDryRun(tarball: Tarball, cwd: string): Promise<{ code: number | null; warnings: string[] }> {
  const { code, output } = await runAsync('npm', ['publish', '--dry-run', tarball.file], cwd);
  const warnings = output.split('\n').filter((line) => /^npm (warn|error)/i.test(line) && !ENVIRONMENT_WARNINGS.some((known) => known.test(line)));
  return { code, warnings };
}

/** Bytes of a file once gzipped at the highest level, as served by a web server. */
export function gzippedSize(path: string): number {
  return gzipSync(readFileSync(path), { level: 9 }).length;
}
