// Where node-gyp finds the headers of the Node that is running, so a native addon (better-sqlite3)
// builds for that Node's ABI without downloading anything: a Node unpacked from its release
// archive carries them beside its binary (bin/node, include/node), a distribution's Node in
// /usr/include/node. Headers of another Node build an addon the running one refuses to load, so a
// folder whose node_version.h names another version is passed over, the caller's own
// `npm_config_nodedir` included (a shell that exported the distribution's headers, then put a
// newer Node first on PATH).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The `npm_config_nodedir` to build with: the caller's own unless its headers are another Node's,
 * else the folder of the running Node's release archive or /usr when their headers match it;
 * undefined when none does (node-gyp then looks for headers itself).
 */
export function matchingNodeDir({ configured = process.env.npm_config_nodedir, execPath = process.execPath, version = process.version } = {}) {
  if (configured && [undefined, version].includes(headersVersion(configured))) return configured;
  return [dirname(dirname(execPath)), '/usr'].find((dir) => headersVersion(dir) === version);
}

/** The version (`v20.20.2`) whose headers `dir` holds, or undefined. */
function headersVersion(dir) {
  const file = join(dir, 'include', 'node', 'node_version.h');
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  const part = (name) => new RegExp(`^#define NODE_${name}_VERSION (\\d+)$`, 'm').exec(text)?.[1];
  const [major, minor, patch] = ['MAJOR', 'MINOR', 'PATCH'].map(part);
  return major && minor && patch ? `v${major}.${minor}.${patch}` : undefined;
}
