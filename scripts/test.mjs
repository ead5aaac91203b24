// `npm test` / `pnpm test`: lint and format check (Biome), dead-code check (knip), type-check the
// whole workspace once, then run every jest project.
// Extra arguments go to jest (e.g. `pnpm test --selectProjects core`). Ends with one plain
// summary line, "tests: N passed, N failed, N skipped", and jest's exit code.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = (name) => join(process.cwd(), 'node_modules', '.bin', name);
// Jest runs our code as CommonJS; ESM-only libraries (jose, openid-client, oidc-provider,
// @simplewebauthn/server) are loaded with dynamic import(), which jest supports only with VM modules.
const nodeOptions = [process.env.NODE_OPTIONS, '--experimental-vm-modules', '--disable-warning=ExperimentalWarning'].filter(Boolean).join(' ');
const env = { ...process.env, NODE_OPTIONS: nodeOptions };
const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', env }).status ?? 1;

const extra = process.argv.slice(2);
if (!extra.length || process.env.CI) {
  console.log('[svc] lint and format check (biome check) ...');
  if (run(bin('biome'), ['check', '.']) !== 0) {
    console.error('[svc] lint or format problems: run `pnpm format` for formatting, fix the lint findings, then test again.');
    process.exit(1);
  }
  console.log('[svc] dead-code check (knip) ...');
  if (run(bin('knip'), []) !== 0) {
    console.error('[svc] unused files, exports or dependencies: remove them, or declare an entry point in knip.jsonc.');
    process.exit(1);
  }
  console.log('[svc] type-checking (tsc --noEmit) ...');
  if (run(bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']) !== 0) {
    console.error('[svc] type errors: fix them before the tests run.');
    process.exit(1);
  }
}

const outDir = mkdtempSync(join(tmpdir(), 'svc-jest-'));
const outputFile = join(outDir, 'results.json');
const args = ['--json', `--outputFile=${outputFile}`, ...(process.env.CI ? ['--ci'] : []), ...extra];
const status = await runJest(args);

try {
  const results = JSON.parse(readFileSync(outputFile, 'utf8'));
  const skipped = results.numPendingTests + results.numTodoTests;
  const failedSuites = results.numFailedTestSuites;
  console.log(`\ntests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`);
  if (failedSuites && !results.numFailedTests) console.log(`(${failedSuites} test suite(s) failed to run)`);
} catch {
  console.log('\ntests: 0 passed, 1 failed (jest produced no results)');
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
process.exit(status);

/**
 * Runs jest and resolves to its exit code. Jest waits, without end, for whatever a test left open
 * (a server, a socket, a timer) once every test has run; on two cores it runs the tests in its own
 * process, so one test that fails before closing its server is enough. Its results file is written
 * as the run ends: from then on it gets EXIT_GRACE_MS to exit, then it is stopped and the run fails
 * with a message that says why, rather than hanging until CI's own limit. SVC_JEST_EXIT_GRACE_MS
 * shortens the wait for the runner's own test (test/architecture/test-runner.test.ts).
 */
function runJest(jestArgs) {
  const EXIT_GRACE_MS = Number(process.env.SVC_JEST_EXIT_GRACE_MS) || 60_000;
  return new Promise((resolve) => {
    const child = spawn(bin('jest'), jestArgs, { stdio: 'inherit', env });
    let lingered = false;
    let grace;
    const watch = setInterval(() => {
      if (grace || !existsSync(outputFile)) return;
      grace = setTimeout(() => {
        lingered = true;
        console.error(
          `\n[svc] jest wrote its results but had not exited ${EXIT_GRACE_MS / 1000} s later: a test left a server, socket or timer open. ` +
            'Stopped it; find the handle with `pnpm test --selectProjects <project> --detectOpenHandles`.',
        );
        child.kill('SIGKILL');
      }, EXIT_GRACE_MS);
    }, 1_000);
    child.on('exit', (code) => {
      clearInterval(watch);
      clearTimeout(grace);
      resolve(lingered ? 1 : (code ?? 1));
    });
  });
}
