import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

// The demo loads the committed QR bundle without a bundler; it must be what uqr builds to.
describe('apps/demo/vendor/qr.js', () => {
  it('is up to date with uqr (run `pnpm --filter @svc/demo vendor-qr` if not)', async () => {
    const script = join(__dirname, '..', 'scripts', 'vendor-qr.mjs');
    const { bundleQr, OUTPUT } = (await import(script)) as { bundleQr(): Promise<string>; OUTPUT: string };
    expect(await readFile(OUTPUT, 'utf8')).toBe(await bundleQr());
  });
});
