import type { LoadResult } from './load';

const WIDTH = 960;
const PANEL = { width: 400, height: 300, top: 50, left: 70 };
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

/**
 * Two panels, req/s and p99 against connections, one line per series, both axes logarithmic
 * (the figures span hashing at ~10/s to "hello" at ~10k/s). Written by hand: no chart dependency.
 */
export function sweepChart(title: string, sweep: Record<string, LoadResult[]>): string {
  const names = Object.keys(sweep);
  const points = Object.values(sweep).flat();
  const connections = [...new Set(points.map((p) => p.connections))].sort((a, b) => a - b);
  const legendHeight = Math.ceil(names.length / 3) * 18;
  const height = PANEL.top + PANEL.height + 60 + legendHeight;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="14">${escapeXml(title)}</text>`,
    panel('req/s', 0, names, sweep, connections, (p) => p.rps),
    panel('p99 latency (ms)', 1, names, sweep, connections, (p) => p.p99),
  ];
  names.forEach((name, i) => {
    const x = 20 + (i % 3) * 310;
    const y = PANEL.top + PANEL.height + 50 + Math.floor(i / 3) * 18;
    parts.push(`<line x1="${x}" y1="${y - 4}" x2="${x + 20}" y2="${y - 4}" stroke="${COLORS[i % COLORS.length]}" stroke-width="2"/>`, `<text x="${x + 26}" y="${y}">${escapeXml(name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

function panel(label: string, index: number, names: string[], sweep: Record<string, LoadResult[]>, connections: number[], value: (p: LoadResult) => number): string {
  const x0 = PANEL.left + index * (PANEL.width + 50);
  const values = Object.values(sweep)
    .flat()
    .map(value)
    .filter((v) => v > 0);
  const [low, high] = [Math.floor(Math.log10(Math.min(...values))), Math.ceil(Math.log10(Math.max(...values)))];
  const [cLow, cHigh] = [Math.log10(connections[0]), Math.log10(connections.at(-1)!)];
  const sx = (c: number) => x0 + ((Math.log10(c) - cLow) / (cHigh - cLow || 1)) * (PANEL.width - 20) + 10;
  const sy = (v: number) => PANEL.top + PANEL.height - ((Math.log10(Math.max(v, 10 ** low)) - low) / (high - low || 1)) * PANEL.height;
  const out = [`<rect x="${x0}" y="${PANEL.top}" width="${PANEL.width}" height="${PANEL.height}" fill="none" stroke="#999"/>`];
  out.push(`<text x="${x0 + PANEL.width / 2}" y="${PANEL.top - 8}" text-anchor="middle" font-size="12">${label} (log)</text>`);
  for (let e = low; e <= high; e += 1) {
    out.push(
      `<line x1="${x0}" y1="${sy(10 ** e)}" x2="${x0 + PANEL.width}" y2="${sy(10 ** e)}" stroke="#eee"/>`,
      `<text x="${x0 - 5}" y="${sy(10 ** e) + 4}" text-anchor="end">${(10 ** e).toLocaleString('en')}</text>`,
    );
  }
  for (const c of connections) out.push(`<text x="${sx(c)}" y="${PANEL.top + PANEL.height + 15}" text-anchor="middle">${c}</text>`);
  out.push(`<text x="${x0 + PANEL.width / 2}" y="${PANEL.top + PANEL.height + 30}" text-anchor="middle">connections</text>`);
  names.forEach((name, i) => {
    const pts = sweep[name].map((p) => `${sx(p.connections).toFixed(1)},${sy(value(p)).toFixed(1)}`);
    out.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2"/>`);
    for (const p of pts) out.push(`<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="3" fill="${COLORS[i % COLORS.length]}"/>`);
  });
  return out.join('\n');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
