import { execFileSync, spawnSync } from 'node:child_process';

// TOTP codes in tests come from Debian's oathtool (liboath, a C implementation with no code in
// common with ours), so the service and its tests cannot share a mistake. Install: apt-get install oathtool.

/** The 6-digit TOTP (SHA-1, 30 s) of a base32 secret at `at`, computed by oathtool. */
export function oathtoolTotp(secret: string, at: Date): string {
  const now = at.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
  return execFileSync('oathtool', ['--totp', '--base32', '--now', now, secret], { encoding: 'utf8' }).trim();
}

function oathtoolMissing(): string | null {
  const probe = spawnSync('oathtool', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? null : probe.error?.message ?? `oathtool exited with ${probe.status}`;
}

/**
 * `describe` for suites that need oathtool. Missing: with CI=true the suite fails, otherwise it
 * is skipped with a loud warning (as the PostgreSQL suites do, DESIGN §13).
 */
export function describeWithOathtool(name: string, body: () => void): void {
  const missing = oathtoolMissing();
  if (missing === null) return describe(name, body);
  if (process.env.CI === 'true') {
    return describe(name, () => {
      it('needs oathtool (apt-get install oathtool)', () => {
        throw new Error(`CI=true: oathtool is not available (${missing})`);
      });
    });
  }
  console.warn(`\n!!! ${name}: SKIPPED, oathtool is not available (${missing}). apt-get install oathtool. !!!\n`);
  describe.skip(name, body);
}
