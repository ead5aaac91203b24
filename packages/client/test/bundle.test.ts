import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

// The demo loads the committed bundle without a bundler; it must be what the source builds to.
describe('apps/demo/vendor/svc-client.js', () => {
  it('is up to date with packages/client/src (run `pnpm --filter @svc/client build` if not)', async () => {
    const script = join(__dirname, '..', 'scripts', 'build.mjs');
    const { bundleClient, OUTPUT } = (await import(script)) as { bundleClient(): Promise<string>; OUTPUT: string };
    expect(await readFile(OUTPUT, 'utf8')).toBe(await bundleClient());
  });
});
