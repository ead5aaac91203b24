// Builds the console into apps/api/console/ (shipped in the server package beside openapi/):
// one ES module bundled by esbuild from the npm packages in node_modules (Preact), the
// stylesheet and the page. Nothing is fetched at run time.
import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const out = join(root, '..', 'api', 'console');
await mkdir(out, { recursive: true });
await build({
  entryPoints: [join(root, 'src', 'app.tsx')],
  outfile: join(out, 'console.js'),
  bundle: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  // The mail preview renders with core's own renderer, and the audit log and webhook screens list
  // core's event types: those files alone (pure, no Node built-ins), not the whole core, which
  // uses node:crypto elsewhere.
  alias: {
    '@svc/core/email-templates': join(root, '..', '..', 'packages', 'core', 'src', 'domain', 'email-templates.ts'),
    '@svc/core/security-event': join(root, '..', '..', 'packages', 'core', 'src', 'domain', 'security-event.ts'),
    '@svc/core/activity-stats': join(root, '..', '..', 'packages', 'core', 'src', 'domain', 'activity-stats.ts'),
  },
  minify: true,
  sourcemap: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
await copyFile(join(root, 'src', 'console.css'), join(out, 'console.css'));
await copyFile(join(root, 'src', 'index.html'), join(out, 'index.html'));
