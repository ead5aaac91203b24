// Bundles uqr's SVG renderer into ONE ES module the demo loads without a bundler:
// apps/demo/vendor/qr.js (committed; test/vendor-qr.test.ts fails when it is out of date). It
// draws the TOTP enrolment's otpauth:// URL as a QR code. Run: pnpm --filter @svc/demo vendor-qr
import { build } from 'esbuild';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const OUTPUT = join(here, '..', 'vendor', 'qr.js');
const BANNER = '// uqr (MIT, https://github.com/unjs/uqr) renderSVG, bundled by apps/demo/scripts/vendor-qr.mjs; do not edit.';

/** The bundle's text (deterministic for a given esbuild and uqr version). */
export async function bundleQr() {
  const result = await build({
    stdin: { contents: "export { renderSVG } from 'uqr';", resolveDir: here, sourcefile: 'qr-entry.js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020'],
    write: false,
    legalComments: 'none',
    banner: { js: BANNER },
    logLevel: 'silent',
    absWorkingDir: join(here, '..'),
  });
  return result.outputFiles[0].text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeFile(OUTPUT, await bundleQr());
  console.log(`wrote ${OUTPUT}`);
}
