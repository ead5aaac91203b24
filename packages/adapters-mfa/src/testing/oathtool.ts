import { execFileSync, spawnSync } from 'node:child_process';
import { describeWhenAvailable } from '@svc/core/testing';

// TOTP codes in tests come from Debian's oathtool (liboath, a C implementation with no code in
// common with ours), so the service and its tests cannot share a mistake. Install: apt-get install oathtool.

/** The 6-digit TOTP (SHA-1, 30 s) of a base32 secret at `at`, computed by oathtool. */
export function oathtoolTotp(secret: string, at: Date): string {
  const now = at
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, ' UTC');
  return execFileSync('oathtool', ['--totp', '--base32', '--now', now, secret], { encoding: 'utf8' }).trim();
}

function oathtoolMissing(): string | null {
  const probe = spawnSync('oathtool', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? null : (probe.error?.message ?? `oathtool exited with ${probe.status}`);
}

/**
 * `describe` for suites that need oathtool. Missing: with CI=true the suite fails, otherwise it
 * is skipped with a loud warning (as the PostgreSQL suites do; docs/architecture.md#tests).
 */
export function describeWithOathtool(name: string, body: () => void): void {
  const missing = oathtoolMissing();
  describeWhenAvailable(name, 'oathtool', missing && `${missing} (apt-get install oathtool)`, body);
}
