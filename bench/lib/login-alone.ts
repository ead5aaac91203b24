import { bcryptComparesAlone } from './ceilings';
import type { Bench, WorkloadFactory } from './context';
import { median, round, runLoad, settle } from './load';
import { turns } from './turns';

/**
 * A login at one connection and one bcrypt compare alone, measured in turn (bench/README.md,
 * round 39). The target is a login's answer at most 10 ms longer than its compare. The compare
 * of the run's hash ceilings is timed at the run's start and end (the faster pool's kept), minutes
 * from the login row, and a compare moves by 3 to 5 % between such moments on this machine (6 to
 * 11 ms at cost 12): judged against it, the target was decided by the machine's drift. Taken in
 * turn (ABBA, turns.ts), both sides meet the same drift.
 */
export interface LoginAlone {
  /** Slices of each side. */
  slices: number;
  /** The median of the login slices' p50s, ms. */
  loginP50: number;
  /** The median of the compare slices' medians, ms. */
  compareMs: number;
  /** Each side's figure per slice, in the order taken. */
  logins: number[];
  compares: number[];
  /** Logins answered over all slices. */
  requests: number;
}

const SLICES = 3;

/** Each slice lasts the run's `--seconds`; the login side is `make`'s workload at one connection. */
export async function loginAloneInTurn(bench: Bench, url: string, make: WorkloadFactory): Promise<LoginAlone> {
  const { seconds, cost } = bench.args;
  const comparesFor = await bcryptComparesAlone(cost);
  const taken = { login: [] as number[], compare: [] as number[] };
  let requests = 0;
  for (const side of turns(SLICES, 'login' as const, 'compare' as const)) {
    await settle();
    if (side === 'compare') {
      taken.compare.push(round(median(await comparesFor(seconds))));
      continue;
    }
    const result = await runLoad({ url, connections: 1, seconds, ...(await make()) });
    if (result.errors > 0) throw new Error(`login at one connection: ${result.errors} errors in a slice`);
    taken.login.push(result.p50);
    requests += result.requests;
  }
  const alone: LoginAlone = {
    slices: SLICES,
    loginP50: round(median(taken.login)),
    compareMs: round(median(taken.compare)),
    logins: taken.login,
    compares: taken.compare,
    requests,
  };
  bench.log(`  login @1 in turn with one compare alone: p50 ${alone.logins.join(' / ')} ms against ${alone.compares.join(' / ')} ms (${requests} logins)`);
  return alone;
}

/** Several runs' figures as one (medians.ts): each the median of the runs', when every run has them. */
export function medianLoginAlone(runs: Array<LoginAlone | undefined>): LoginAlone | undefined {
  if (runs.length === 0 || !runs.every((run): run is LoginAlone => run !== undefined)) return undefined;
  const of = (pick: (run: LoginAlone) => number) => round(median(runs.map(pick)));
  return {
    slices: runs[0].slices,
    loginP50: of((run) => run.loginP50),
    compareMs: of((run) => run.compareMs),
    logins: runs.flatMap((run) => run.logins),
    compares: runs.flatMap((run) => run.compares),
    requests: of((run) => run.requests),
  };
}
