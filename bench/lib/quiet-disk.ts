import { readFileSync } from 'node:fs';
import { PG_URL, withClient } from './database';

/** Below this much dirty and in-flight page cache the disk is taken as quiet. */
const QUIET_BYTES = 32 * 1024 * 1024;

/** Dirty + Writeback bytes from /proc/meminfo text (kB figures); null when neither line is there. */
export function pendingWriteBytes(meminfo: string): number | null {
  let total = 0;
  let found = false;
  for (const line of meminfo.split('\n')) {
    const match = /^(Dirty|Writeback):\s+(\d+) kB$/.exec(line.trim());
    if (!match) continue;
    found = true;
    total += Number(match[2]) * 1024;
  }
  return found ? total : null;
}

/**
 * Before a run: PostgreSQL writes its dirty buffers back (CHECKPOINT), then the kernel its page
 * cache, up to `maxSeconds`. A previous `--million` run leaves a dropped 3M-row database being
 * written back for minutes, and rows measured meanwhile sag (bench/README.md: "Targets");
 * `settle()` watches the CPUs only. Answers how long it waited and what was still pending.
 */
export async function quietDisk(maxSeconds = 120): Promise<{ seconds: number; pendingMb: number | null }> {
  const started = Date.now();
  // Needs superuser or pg_checkpoint; without it the kernel's write-back is still waited for.
  await withClient(PG_URL, (client) => client.query('CHECKPOINT')).catch(() => undefined);
  let pending = pendingNow();
  while (pending !== null && pending > QUIET_BYTES && Date.now() - started < maxSeconds * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    pending = pendingNow();
  }
  return { seconds: Math.round((Date.now() - started) / 100) / 10, pendingMb: pending === null ? null : Math.round(pending / 1024 / 1024) };
}

function pendingNow(): number | null {
  try {
    return pendingWriteBytes(readFileSync('/proc/meminfo', 'utf8'));
  } catch {
    return null; // not Linux: nothing to watch
  }
}
