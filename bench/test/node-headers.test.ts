import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// scripts/lib/node-headers.mjs: which Node headers a native addon is built against when the
// bench builds the image's server (bench/lib/built.ts runs scripts/build-image-steps.mjs) and
// when a fresh clone installs itself (scripts/ensure-installed.mjs).
interface NodeHeadersLib {
  matchingNodeDir(options?: { configured?: string; execPath?: string; version?: string }): string | undefined;
}

describe('the Node headers a native addon builds against', () => {
  let lib: NodeHeadersLib;
  let root: string;
  /** A folder laid out as Node's release archive (bin/node, include/node) with headers of `version`. */
  const release = (name: string, version: string) => {
    const dir = join(root, name);
    const [major, minor, patch] = version.slice(1).split('.');
    mkdirSync(join(dir, 'include', 'node'), { recursive: true });
    mkdirSync(join(dir, 'bin'), { recursive: true });
    writeFileSync(
      join(dir, 'include', 'node', 'node_version.h'),
      `#ifndef SRC_NODE_VERSION_H_\n#define NODE_MAJOR_VERSION ${major}\n#define NODE_MINOR_VERSION ${minor}\n#define NODE_PATCH_VERSION ${patch}\n\n#define NODE_VERSION_IS_RELEASE 1\n`,
    );
    return dir;
  };

  beforeAll(async () => {
    lib = (await import(resolve(__dirname, '../../scripts/lib/node-headers.mjs'))) as NodeHeadersLib;
    root = mkdtempSync(join(tmpdir(), 'svc-node-headers-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("passes over configured headers of another Node for the running Node's own release archive", () => {
    const distribution = release('distribution', 'v20.20.2');
    const node24 = release('node24', 'v24.21.0');
    const execPath = join(node24, 'bin', 'node');
    expect(lib.matchingNodeDir({ configured: distribution, execPath, version: 'v24.21.0' })).toBe(node24);
    expect(lib.matchingNodeDir({ configured: undefined, execPath, version: 'v24.21.0' })).toBe(node24);
  });

  it('keeps configured headers of the running Node, and a configured folder whose version it cannot read', () => {
    const configured = release('configured', 'v24.21.0');
    const beside = release('beside', 'v24.21.0');
    expect(lib.matchingNodeDir({ configured, execPath: join(beside, 'bin', 'node'), version: 'v24.21.0' })).toBe(configured);
    const unknown = join(root, 'source-tree');
    mkdirSync(unknown, { recursive: true });
    expect(lib.matchingNodeDir({ configured: unknown, execPath: join(beside, 'bin', 'node'), version: 'v24.21.0' })).toBe(unknown);
  });

  it('names no folder when no headers match the running Node', () => {
    const old = release('old', 'v20.20.2');
    expect(lib.matchingNodeDir({ configured: old, execPath: join(old, 'bin', 'node'), version: 'v99.0.0' })).toBeUndefined();
  });
});
