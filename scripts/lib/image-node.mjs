// The Node the images run (ARG NODE_IMAGE=node:<major>-slim in docker/api.Dockerfile), for the
// replay of their build (scripts/build-image-steps.mjs) and the bench's built-server rows: a
// native addon built and loaded on another Node than the image's can pass here and fail there.
// When the running Node is another major, Node's own build of that major is taken from the npm
// registry (the `node-<platform>-<arch>` package, the same binaries as nodejs.org's archives,
// headers included) into a folder under the system temp dir, once per version.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The major version (`'24'`) of the Node image a Dockerfile builds on. */
function imageNodeMajor(dockerfileText) {
  const major = /^ARG NODE_IMAGE=node:(\d+)(?:[.-][^\s]*)?$/m.exec(dockerfileText)?.[1];
  if (!major) throw new Error('the Dockerfile names no node:<major> image in ARG NODE_IMAGE');
  return major;
}

/**
 * A Node binary of `major`: `SVC_IMAGE_NODE` when set, this process's own when it is that major,
 * else the registry's build (fetched on first use; throws with the way out when it cannot be).
 * Two processes may fetch at once (test suites in parallel): each unpacks into a folder of its
 * own and renames it into place, and the one that comes second keeps the first one's.
 */
function nodeOfMajor(major) {
  if (process.env.SVC_IMAGE_NODE) return process.env.SVC_IMAGE_NODE;
  if (process.versions.node.split('.')[0] === major) return process.execPath;
  const folder = join(tmpdir(), `svc-node-${major}-${process.platform}-${process.arch}`);
  const binary = join(folder, 'package', 'bin', 'node');
  if (existsSync(binary)) return binary;
  const name = `node-${process.platform}-${process.arch}@${major}`;
  const scratch = mkdtempSync(`${folder}-`);
  try {
    execFileSync('npm', ['pack', name, '--silent', '--pack-destination', scratch], { stdio: ['ignore', 'ignore', 'pipe'] });
    const archive = readdirSync(scratch).find((file) => file.endsWith('.tgz'));
    execFileSync('tar', ['xzf', join(scratch, archive), '-C', scratch]);
    rmSync(join(scratch, archive));
    if (!existsSync(join(scratch, 'package', 'bin', 'node'))) throw new Error(`${name} holds no bin/node`);
    renameSync(scratch, folder);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    if (existsSync(binary)) return binary; // another process put it in place first
    throw new Error(`the images run Node ${major}; ${name} could not be fetched from the npm registry (${error.message.split('\n')[0]}). Set SVC_IMAGE_NODE to a Node ${major} binary.`);
  }
  return binary;
}

/** The images' Node binary, read from the repository at `repo`. */
export function imageNode(repo) {
  return nodeOfMajor(imageNodeMajor(readFileSync(join(repo, 'docker', 'api.Dockerfile'), 'utf8')));
}
