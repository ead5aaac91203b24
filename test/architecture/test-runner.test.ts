import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// `npm test` (scripts/test.mjs) must end even when a test leaves a handle open: jest itself would
// wait for it without end once every test has run, and CI would only stop at its own limit.
const root = resolve(__dirname, '../..');

function runWith(testSource: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-runner-'));
  try {
    writeFileSync(join(dir, 'fixture.test.js'), testSource);
    const config = JSON.stringify({ rootDir: dir, testEnvironment: 'node', transform: {} });
    const env: NodeJS.ProcessEnv = { ...process.env, SVC_JEST_EXIT_GRACE_MS: '1500' };
    delete env.CI; // under CI the script lints and type-checks the workspace first
    const run = spawnSync(process.execPath, ['scripts/test.mjs', '--config', config], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('npm test', () => {
  it('stops a jest that lingers after its run on an open server, and fails saying why', () => {
    const run = runWith(`
      const { createServer } = require('node:http');
      test('leaves a server listening', (done) => { createServer().listen(0, '127.0.0.1', done); });
    `);
    expect(run.output).toContain('tests: 1 passed, 0 failed, 0 skipped');
    expect(run.output).toContain('had not exited 1.5 s later: a test left a server, socket or timer open');
    expect(run.status).toBe(1);
  });

  it('passes a run that closes what it opened', () => {
    const run = runWith(`
      const { createServer } = require('node:http');
      test('closes its server', (done) => { const s = createServer().listen(0, '127.0.0.1', () => s.close(done)); });
    `);
    expect(run.output).toContain('tests: 1 passed, 0 failed, 0 skipped');
    expect(run.output).not.toContain('had not exited');
    expect(run.status).toBe(0);
  });
});
