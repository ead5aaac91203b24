import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchResults } from '../lib/context';
import { judgeTargets } from '../lib/targets';

// A stored full run (`pnpm bench --million`, 2026-11-23) that met every target.
const RUN = join(__dirname, '..', 'results', '2026-11-23T12-48-33-final6.json');
const stored = (): BenchResults => JSON.parse(readFileSync(RUN, 'utf8')) as BenchResults;

function verdict(results: BenchResults, startsWith: string): boolean | null {
  const target = judgeTargets(results).find((t) => t.target.startsWith(startsWith));
  if (!target) throw new Error(`no target "${startsWith}"`);
  return target.met;
}

function row(results: BenchResults, system: string, endpoint: string) {
  const found = results.rows.find((r) => r.system === system && r.endpoint === endpoint);
  if (!found) throw new Error(`no row ${system} ${endpoint}`);
  return found;
}

describe('judgeTargets (the verdicts of a run against bench/README.md targets)', () => {
  it('judges the stored run as it was judged when it ran: every target met', () => {
    const results = stored();
    const judged = judgeTargets(results);
    expect(judged).toHaveLength(12);
    expect(judged.map((t) => t.met)).toEqual(results.targets.map((t) => t.met));
    expect(judged.every((t) => t.met === true)).toBe(true);
  });

  it('fails refresh below 60 % of its ceiling, or with p99 over 50 ms', () => {
    const low = stored();
    row(low, 'svc · PostgreSQL', 'refresh').ratio = 0.59;
    expect(verdict(low, 'refresh >=')).toBe(false);
    const slow = stored();
    row(slow, 'svc · PostgreSQL', 'refresh').result.p99 = 50.1;
    expect(verdict(slow, 'refresh >=')).toBe(false);
  });

  it('fails /me below 70 %, and /me beside a login burst over 25 ms p99', () => {
    const low = stored();
    row(low, 'svc · PostgreSQL', 'me').ratio = 0.69;
    expect(verdict(low, 'me >=')).toBe(false);
    const mixed = stored();
    mixed.mixed!.me.p99 = 25.1;
    expect(verdict(mixed, '/me p99 <= 25 ms')).toBe(false);
  });

  it("compares password rows with better-auth by share of each one's own hash ceiling", () => {
    const results = stored();
    row(results, 'svc · PostgreSQL', 'login').ratio = 0.9;
    row(results, 'better-auth · PostgreSQL', 'sign-in').ratio = 0.91;
    expect(verdict(results, 'ahead of better-auth: login vs sign-in')).toBe(false);
    results.rows = results.rows.filter((r) => !r.system.startsWith('better-auth'));
    expect(verdict(results, 'ahead of better-auth: sign-up')).toBeNull();
  });

  it('judges the 1M rows against the 1k rows measured just before growing, strictly at 15 %', () => {
    const results = stored();
    const baseline = results.million!.baseline!.find((r) => r.endpoint === 'me')!;
    const large = results.million!.rows.find((r) => r.endpoint === 'me')!;
    large.result.p50 = Math.round(baseline.result.p50 * 1.16 * 100) / 100;
    expect(verdict(results, 'me p50 with 1M users')).toBe(false);
    large.result.p50 = baseline.result.p50 * 1.1;
    expect(verdict(results, 'me p50 with 1M users')).toBe(true);
    delete results.million;
    expect(verdict(results, 'login p50 with 1M users')).toBeNull();
  });

  it('holds login at one connection to one hash time plus 10 ms', () => {
    const results = stored();
    const single = results.ceilings['bcrypt compare'].singleMs;
    results.sweep['login (svc)'].find((p) => p.connections === 1)!.p50 = single + 10.1;
    expect(verdict(results, 'login p50 at 1 connection')).toBe(false);
  });
});
