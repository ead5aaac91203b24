import { build } from 'esbuild';

/**
 * An installed package bundled the way a bundler for an edge runtime or a worker does: platform
 * `neutral`, so no Node built-in resolves and a `node:` import anywhere in the graph fails the
 * build; the `worker` and `browser` conditions of the dependencies. `how` picks the package's
 * ES module build (`import`) or its CommonJS build (`require`). The result is a script that puts
 * the package's exports on the global `bundled`.
 */
export async function bundleForEdge(appDir: string, specifier: string, how: 'import' | 'require'): Promise<{ code: string; inputs: string[] }> {
  const contents = how === 'import' ? `export * from '${specifier}';` : `module.exports = require('${specifier}');`;
  const result = await build({
    stdin: { contents, resolveDir: appDir, loader: 'js', sourcefile: `edge-${how}.js` },
    absWorkingDir: appDir,
    bundle: true,
    platform: 'neutral',
    format: 'iife',
    globalName: 'bundled',
    mainFields: ['module', 'main'],
    conditions: ['worker', 'browser'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return { code: result.outputFiles[0].text, inputs: Object.keys(result.metafile.inputs) };
}

/** The globals of a Web runtime, and nothing of Node's (no process, Buffer, require). */
export function webGlobals(): Record<string, unknown> {
  const names = [
    'fetch',
    'Request',
    'Response',
    'Headers',
    'URL',
    'URLSearchParams',
    'crypto',
    'TextEncoder',
    'TextDecoder',
    'btoa',
    'atob',
    'ReadableStream',
    'AbortController',
    'AbortSignal',
    'setTimeout',
    'clearTimeout',
    'structuredClone',
    'console',
  ];
  return Object.fromEntries(names.map((name) => [name, (globalThis as Record<string, unknown>)[name]]));
}
