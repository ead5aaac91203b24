import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled milliseconds in the window, idle excluded. */
  busyMs: number;
  idleMs: number;
  /** Self time by function (name, file, line), highest first. */
  frames: Array<{ frame: string; ms: number; share: number }>;
  /** Self time by where the code lives: a package of node_modules, one of ours, node itself, GC. */
  owners: Array<{ owner: string; ms: number; share: number }>;
}

/**
 * Reads a V8 .cpuprofile and sums self time per frame and per owner over the last `windowMs` of the
 * profile (the load; the process's start-up, migrations included, is left out).
 */
export function summarizeProfile(file: string, windowMs: number, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const since = profile.endTime - windowMs * 1000;
  const frames = new Map<string, number>();
  const owners = new Map<string, number>();
  let time = profile.startTime;
  let idle = 0;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    time += delta;
    if (time < since) return;
    const frame = byId.get(id)!.callFrame;
    const ms = delta / 1000;
    if (frame.functionName === '(idle)') return void (idle += ms);
    busy += ms;
    const key = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    frames.set(key, (frames.get(key) ?? 0) + ms);
    const owner = ownerOf(frame);
    owners.set(owner, (owners.get(owner) ?? 0) + ms);
  });
  const sorted = (map: Map<string, number>) => [...map.entries()].sort((a, b) => b[1] - a[1]);
  return {
    busyMs: Math.round(busy),
    idleMs: Math.round(idle),
    frames: sorted(frames)
      .slice(0, top)
      .map(([frame, ms]) => ({ frame, ms: Math.round(ms), share: share(ms, busy) })),
    owners: sorted(owners)
      .slice(0, top)
      .map(([owner, ms]) => ({ owner, ms: Math.round(ms), share: share(ms, busy) })),
  };
}

const share = (ms: number, total: number) => Math.round((ms / total) * 1000) / 10;

function shortUrl(url: string): string {
  const pkg = /node_modules\/\.pnpm\/[^/]+\/node_modules\/(.+)$/.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/(packages|apps)\/(.+)$/.exec(url);
  return ours ? `${ours[1]}/${ours[2]}` : url.replace(/^file:\/\//, '');
}

function ownerOf(frame: ProfileNode['callFrame']): string {
  if (frame.functionName.startsWith('(')) return frame.functionName; // (garbage collector), (program)
  const pkg = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (pkg) return pkg[1];
  const ours = /\/(packages|apps)\/([^/]+)\//.exec(frame.url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (frame.url.startsWith('node:') || frame.url === '') return 'node (internals, native)';
  return frame.url;
}

export function formatSummary(title: string, summary: ProfileSummary): string {
  const lines = [`${title}: ${summary.busyMs} ms on CPU, ${summary.idleMs} ms idle`, '  by owner (self time):'];
  for (const o of summary.owners.slice(0, 12)) lines.push(`    ${String(o.share).padStart(5)} %  ${o.owner}`);
  lines.push('  top frames (self time):');
  for (const f of summary.frames) lines.push(`    ${String(f.share).padStart(5)} %  ${f.frame}`);
  return lines.join('\n');
}
