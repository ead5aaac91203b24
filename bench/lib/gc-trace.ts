// Reads V8's `--trace-gc-nvp` lines (one `name=value` line per collection) from a server's log:
// the young-generation collections (`gc=s`, scavenges) and the full ones (`gc=mc`, mark-compact) of
// its main isolate. A worker thread's isolate (its lines carry `:1]`, `:2]`, ... after the address
// on Node 22 and newer) is left out: its collections do not pause the event loop.

import { median, round } from './load';

/** What `cpu-per-request.ts --gc` reports for the measured requests. */
export interface GcSummary {
  scavenges: number;
  /** Median and longest pause of a scavenge, ms. */
  scavengePauseMs: { median: number; max: number };
  /** Median of what each scavenge moved to the old generation, MB. */
  promotedMbPerScavenge: number;
  /**
   * Median of what each scavenge copied within the young generation, MB (V8's `new_space_survived`):
   * the survivors it kept young, counted apart from those it promoted (bench/README.md, round 17).
   */
  survivedMbPerScavenge: number;
  markCompacts: number;
  /** Longest pause of a mark-compact, ms (0 without one). */
  markCompactPauseMsMax: number;
}

interface Collection {
  kind: string;
  pause: number;
  promoted: number;
  survived: number;
}

const PREFIX = /^\[\d+:0x[0-9a-f]+(?::(\d+))?\]\s+\d+ ms: /;

function field(line: string, name: string): number {
  const match = new RegExp(`(?:^| )${name}=([0-9.]+)`).exec(line);
  return match ? Number(match[1]) : 0;
}

function collections(log: string): Collection[] {
  const found: Collection[] = [];
  for (const line of log.split('\n')) {
    const prefix = PREFIX.exec(line);
    if (!prefix || (prefix[1] !== undefined && prefix[1] !== '0')) continue;
    const kind = / gc=(\w+)/.exec(line)?.[1];
    if (kind === undefined) continue;
    found.push({ kind, pause: field(line, 'pause'), promoted: field(line, 'promoted'), survived: field(line, 'new_space_survived') });
  }
  return found;
}

/** The median, 0 for a log without such collections. */
const medianOrZero = (values: number[]) => (values.length > 0 ? median(values) : 0);

/** The main isolate's collections in `log` (the part of a server's log written while it was measured). */
export function summarizeGcTrace(log: string): GcSummary {
  const all = collections(log);
  const scavenges = all.filter((c) => c.kind === 's');
  const full = all.filter((c) => c.kind === 'mc');
  const mb = (bytes: number) => round(bytes / 1024 / 1024, 2);
  return {
    scavenges: scavenges.length,
    scavengePauseMs: { median: medianOrZero(scavenges.map((c) => c.pause)), max: Math.max(0, ...scavenges.map((c) => c.pause)) },
    promotedMbPerScavenge: mb(medianOrZero(scavenges.map((c) => c.promoted))),
    survivedMbPerScavenge: mb(medianOrZero(scavenges.map((c) => c.survived))),
    markCompacts: full.length,
    markCompactPauseMsMax: Math.max(0, ...full.map((c) => c.pause)),
  };
}
