import type { MemoryFigures, StartupFigures } from './built';
import type { SearchLatency } from './user-search';
import type { BenchArgs } from './args';
import type { HashCeiling } from './ceilings';
import type { LoginAlone } from './login-alone';
import { median, runLoad, round, settle, type LoadResult } from './load';
import { medianResult } from './median-rows';
import { turns } from './turns';
import type { Workload } from './rows';

/** One measured row: what was driven, its figures, and the ceiling it is divided by. */
export interface RowRecord {
  system: string;
  endpoint: string;
  result: LoadResult;
  ceiling?: { name: string; perSecond: number };
  /** req/s divided by the ceiling's per-second figure. */
  ratio?: number;
  /**
   * A row measured in turn with its ceiling (Bench.inTurn; absent in runs before round 25): each
   * side's req/s per slice, in the order taken. The row's figures are the medians of its slices,
   * the ceiling's per-second figure the median of the ceiling's.
   */
  inTurn?: { rows: number[]; ceilings: number[] };
  /**
   * A second ceiling measured in the same turns, each slice right after one of the ceiling's (the
   * mail rows: the handler without delivery, since round 33; absent before): its per-second figure
   * is the median of its slices; `ceilingAnswered` is the median of the first ceiling's answers a
   * second, for a ceiling that delivers. `answeredShare`, in a row that is the median of several
   * runs (median-rows.ts) only: the median of each run's answers a second divided by its own
   * second ceiling, as a row's `ratio` is the median of its runs' ratios.
   */
  beside?: { name: string; perSecond: number; slices: number[]; ceilingAnswered?: number; answeredShare?: number };
}

export interface BenchResults {
  date: string;
  label: string;
  /** `mailboxes`: where the mail rows' file mailboxes were (bench/lib/mailbox-folder.ts); absent in runs before 2026-11-26 (disk). */
  machine: {
    cores: number;
    node: string;
    loadBefore: number[];
    loadAfter?: number[];
    /** The CPUs' busy share (0..1) over 2 s before the run, after waiting for quiet; absent in runs before round 21. */
    cpuBusyBefore?: number;
    /** Other work shared the cores at the start: by `cpuBusyBefore`, or before round 21 by the 1-min load average. */
    busy: boolean;
    mailboxes?: 'tmpfs' | 'disk';
  };
  args: BenchArgs;
  ceilings: Record<string, HashCeiling>;
  rows: RowRecord[];
  /** Series name -> one result per connection count (the chart). */
  sweep: Record<string, LoadResult[]>;
  mixed?: { login: LoadResult; me: LoadResult };
  /** A login at one connection in turn with one compare alone (login-alone.ts); absent in runs before round 39. */
  loginAlone?: LoginAlone;
  /**
   * `baseline`: the same rows at 1k users (older runs lack it). `slices`: since round 23 the two
   * sides are two new tenants alike but for their size, and each row is the median of this many
   * slices taken in turn with the other side's; before, one row at 1k just before growing the
   * run's own tenant and one after.
   */
  million?: { users: number; seedSeconds: number; rows: RowRecord[]; baseline?: RowRecord[]; slices?: number; userSearch?: { at1k: SearchLatency; at1M: SearchLatency; p95Ratio: number } };
  /** The built server (what the image runs): time to ready and idle RSS per storage, and the leak check. */
  startup?: { sqlite?: StartupFigures; postgres?: StartupFigures };
  memory?: MemoryFigures;
  targets: Array<{ target: string; measured: string; met: boolean | null }>;
  notes: string[];
}

/** A row's ceiling and its req/s divided by it: the one place a ratio is worked out. */
export function dividedBy(ceiling: Ceiling, result: LoadResult): Required<Pick<RowRecord, 'ceiling' | 'ratio'>> {
  return { ceiling, ratio: round(result.rps / ceiling.perSecond, 3) };
}

/** A row's workload is built per run: sign-up counters and refresh queues must start fresh. */
export type WorkloadFactory = () => Workload | Promise<Workload>;

/** One side of a comparison in turn (Bench.inTurn): what is driven, where, and how it is named. */
export interface TurnSide {
  system: string;
  endpoint: string;
  url: string;
  make: WorkloadFactory;
}

/** How many slices of each side a row measured in turn with its ceiling takes (Bench.inTurn). */
const IN_TURN_SLICES = 3;

export interface Ceiling {
  name: string;
  perSecond: number;
}

export class Bench {
  constructor(
    readonly args: BenchArgs,
    readonly results: BenchResults,
  ) {}

  /** False for a section left out with --only (a quick A/B of one row). */
  wants(section: string): boolean {
    return this.args.only === null || this.args.only.includes(section);
  }

  log(line: string): void {
    process.stdout.write(`${line}\n`);
  }

  /**
   * Runs one row at `connections` (default: the row connection count), prints and records it.
   * `warmUp`: first the same untimed second of load (and its drain) that `series` gives each
   * series, so that a row measured on its own is measured warm (JIT, pools) like its ceiling.
   */
  async row(system: string, endpoint: string, url: string, make: WorkloadFactory, options: { ceiling?: Ceiling; connections?: number; record?: boolean; warmUp?: boolean } = {}): Promise<RowRecord> {
    const connections = options.connections ?? this.args.connections;
    if (options.warmUp) await loadAndDrain(url, connections, 1, await make());
    await settle();
    const result = await loadAndDrain(url, connections, this.args.seconds, await make());
    const record: RowRecord = {
      system,
      endpoint,
      result,
      // The row's own copy of its ceiling: rows handed one object (the mail rows) are divided again one by one.
      ...(options.ceiling && options.ceiling.perSecond > 0 ? dividedBy({ ...options.ceiling }, result) : {}),
    };
    if (options.record !== false) this.results.rows.push(record);
    this.log(formatRow(record));
    return record;
  }

  /**
   * The chart's series: the same row at every connection count of the sweep, after a one-second
   * warm-up (JIT, pools) that is not recorded. The point at the row connection count is the row,
   * unless `record` is false (a row then measured in turn with its ceiling: {@link inTurn}).
   */
  async series(
    name: string,
    system: string,
    endpoint: string,
    url: string,
    make: WorkloadFactory,
    ceiling?: (connections: number) => Ceiling | undefined,
    options: { record?: boolean } = {},
  ): Promise<RowRecord> {
    await loadAndDrain(url, this.args.connections, 1, await make());
    let main: RowRecord | undefined;
    const points: LoadResult[] = [];
    for (const connections of this.args.sweep) {
      const isRow = connections === this.args.connections;
      const record = await this.row(system, `${endpoint}${isRow ? '' : ` @${connections}`}`, url, make, {
        connections,
        ceiling: ceiling?.(connections),
        record: isRow && options.record !== false,
      });
      points.push(record.result);
      if (isRow) main = record;
    }
    this.results.sweep[name] = points;
    return main!;
  }

  /**
   * A row and its ceiling measured in turn at the row connection count, `slices` times each in
   * ABBA order (turns.ts), each slice after an untimed second of its own load (`row()`'s
   * `warmUp`); recorded as one row: the median of its slices' figures, divided by the median of
   * the ceiling's slices.
   * Measured minutes apart, a row and its ceiling each caught the machine's speed of their own
   * moment: seven runs of one tree put `/me` at 54 to 86 % of its ceiling (bench/README.md, round
   * 25). `ceiling.name` names the ceiling in the row. `beside`, when given, is a second ceiling
   * taken in the same turns, a slice right after each of the first ceiling's, and recorded with
   * the row (`RowRecord.beside`) without dividing it.
   */
  async inTurn(row: TurnSide, ceiling: TurnSide & { name: string }, slices = IN_TURN_SLICES, beside?: TurnSide & { name: string }): Promise<RowRecord> {
    const taken = { row: [] as LoadResult[], ceiling: [] as LoadResult[], beside: [] as LoadResult[] };
    const measure = async ({ system, endpoint, url, make }: TurnSide) => (await this.row(system, endpoint, url, make, { record: false, warmUp: true })).result;
    for (const side of turns(slices, 'row' as const, 'ceiling' as const)) {
      taken[side].push(await measure(side === 'row' ? row : ceiling));
      if (side === 'ceiling' && beside) taken.beside.push(await measure(beside));
    }
    const result = medianResult(taken.row);
    const answered = taken.ceiling.map((slice) => slice.answeredRps).filter((rps): rps is number => rps !== undefined);
    const record: RowRecord = {
      system: row.system,
      endpoint: row.endpoint,
      result,
      ...dividedBy({ name: ceiling.name, perSecond: round(median(taken.ceiling.map((slice) => slice.rps))) }, result),
      inTurn: { rows: taken.row.map((slice) => slice.rps), ceilings: taken.ceiling.map((slice) => slice.rps) },
      ...(beside
        ? {
            beside: {
              name: beside.name,
              perSecond: round(median(taken.beside.map((slice) => slice.rps))),
              slices: taken.beside.map((slice) => slice.rps),
              ...(answered.length === taken.ceiling.length ? { ceilingAnswered: round(median(answered)) } : {}),
            },
          }
        : {}),
    };
    this.results.rows.push(record);
    const besideText = record.beside ? `; ${record.beside.name} ${record.beside.slices.join(' / ')} req/s` : '';
    this.log(`${formatRow(record)}, in turn: ${record.inTurn!.rows.join(' / ')} against ${record.inTurn!.ceilings.join(' / ')} req/s${besideText}`);
    return record;
  }

  /**
   * A ceiling's series measured again (the minimal handlers, at the end of the PostgreSQL part):
   * each point keeps the higher figure, and rows divided by it are divided again, so a moment of
   * outside load during one measurement cannot flatter the ratios.
   */
  async remeasure(name: string, url: string, make: WorkloadFactory, dependants: string[]): Promise<void> {
    const points = this.results.sweep[name];
    if (!points) return;
    await loadAndDrain(url, this.args.connections, 1, await make());
    for (const [i, old] of points.entries()) {
      await settle();
      const again = await loadAndDrain(url, old.connections, this.args.seconds, await make());
      this.log(`  again: ${name} c=${again.connections} ${again.rps} req/s (first ${old.rps})${again.rps > old.rps ? ', kept' : ''}`);
      if (again.rps <= old.rps) continue;
      points[i] = again;
      const row = this.results.rows.find((r) => r.result === old);
      if (row) row.result = again;
    }
    for (const row of this.results.rows) {
      if (!row.ceiling || !dependants.includes(row.ceiling.name)) continue;
      const point = points.find((p) => p.connections === row.result.connections);
      if (!point || point.rps <= row.ceiling.perSecond) continue;
      Object.assign(row, dividedBy({ name: row.ceiling.name, perSecond: point.rps }, row.result));
    }
  }

  /** A measured series as the ceiling of later rows, point by point (same connection count). */
  ceilingFrom(name: string, series: string): (connections: number) => Ceiling | undefined {
    return (connections) => {
      const point = this.results.sweep[series]?.find((result) => result.connections === connections);
      return point ? { name, perSecond: point.rps } : undefined;
    };
  }
}

/** One load, then the wait for the work it left behind (see withDrain). */
async function loadAndDrain(url: string, connections: number, seconds: number, workload: Workload): Promise<LoadResult> {
  const result = await runLoad({ url, connections, seconds, ...workload });
  return withDrain(result, await drainMs(workload));
}

/** How long the row's left-behind work took to finish after its last answer (0 for rows that leave none). */
async function drainMs(workload: Workload): Promise<number> {
  if (!workload.drained) return 0;
  const started = performance.now();
  await workload.drained();
  return performance.now() - started;
}

/**
 * A row whose requests leave work behind counts it: its rate is the answers over the load's
 * seconds plus the time their work took to finish (a mail request is done when its mail is out,
 * and a backlog left to the next row would be measured there instead).
 */
function withDrain(result: LoadResult, drain: number): LoadResult {
  if (drain === 0) return result;
  const rps = round((result.rps * result.seconds) / (result.seconds + drain / 1000));
  return { ...result, rps, answeredRps: result.rps, drainMs: Math.round(drain) };
}

function formatRow(record: RowRecord): string {
  const { result } = record;
  const ratio = record.ratio !== undefined ? `${(record.ratio * 100).toFixed(0)} % of ${record.ceiling!.name} (${record.ceiling!.perSecond}/s)` : '';
  const drained = result.drainMs !== undefined ? ` (answered ${result.answeredRps} req/s, then ${result.drainMs} ms until delivered)` : '';
  return `  ${pad(record.system, 22)} ${pad(record.endpoint, 22)} c=${pad(String(result.connections), 3)} ${padLeft(result.rps.toFixed(1), 8)} req/s  p50 ${padLeft(String(result.p50), 5)} ms  p99 ${padLeft(String(result.p99), 5)} ms  errors ${pad(String(result.errors), 5)} ${ratio}${drained}`;
}

const pad = (text: string, width: number) => text.padEnd(width);
const padLeft = (text: string, width: number) => text.padStart(width);
