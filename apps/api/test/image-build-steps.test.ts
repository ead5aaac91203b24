import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

// The container images' build steps, replayed without Docker by
// scripts/build-image-steps.mjs (see its header for what it covers and what needs an engine):
// the API and proxy images are built, started in production mode, probed and stopped.

const ROOT = resolve(__dirname, '../../..');
const hasPnpm = spawnSync('pnpm', ['--version'], { encoding: 'utf8' }).status === 0;

if (!hasPnpm && process.env.CI !== 'true') {
  console.warn('\n!!! image build steps SKIPPED: pnpm is not on PATH (with CI=true this is a failure). !!!\n');
}

(hasPnpm || process.env.CI === 'true' ? describe : describe.skip)('the images, built and run without Docker', () => {
  it('scripts/build-image-steps.mjs replays both Dockerfiles, starts them, checks them and stops them cleanly', async () => {
    const child = spawn(process.execPath, ['scripts/build-image-steps.mjs'], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect({ code, tail: code === 0 ? 'ok' : output.slice(-6000) }).toEqual({ code: 0, tail: 'ok' });
    expect(output).toContain('api stopped on SIGTERM with exit code 0');
    expect(output).toContain('proxy stopped on SIGTERM with exit code 0');
  }, 600_000);
});
