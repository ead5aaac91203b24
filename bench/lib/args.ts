/** Options of `pnpm bench`; every flag is optional. */
export interface BenchArgs {
  /** bcrypt cost of the API and of the ceiling measurement (SVC_BCRYPT_COST). */
  cost: number;
  /** Seconds per measured row; --quick makes it 2. */
  seconds: number;
  /** Connections of a row; the chart sweeps `sweep`. */
  connections: number;
  sweep: number[];
  /** Seed 1 million users and compare login/refresh/me p50 with the 1 thousand run. */
  million: boolean;
  /** Skip the better-auth peer (it is also skipped, with the reason, when it cannot start). */
  peer: boolean;
  /** Skip the embedded (SQLite) run. */
  embedded: boolean;
  /** Profile the API with --cpu-prof (login+me mix, refresh) instead of the measured run. */
  profile: boolean;
  /** Write bench/README.md's summary table from this run. */
  writeReadme: boolean;
  /** Label stored in the results (e.g. "before", "after"). */
  label: string;
  /** Another checkout to run the API and proxy from (an A/B of a change); default: this one. */
  apiRoot: string | null;
  /** A built server's app folder (scripts/build-image-steps.mjs --keep: <work>/api-root/app); null = build one. */
  built: string | null;
  /** The mail rows' file mailboxes in the run's scratch folder on the disk instead of in memory (bench/lib/mailbox-folder.ts). */
  mailOnDisk: boolean;
  /** Only these sections (minimal, sign-up, login, refresh, me, magic-link, password-reset, mixed, proxy, user-search, startup, memory); null = all. */
  only: string[] | null;
}

const USAGE = `pnpm bench [--quick] [--seconds N] [--cost N] [--connections N] [--million]
           [--no-peer] [--no-embedded] [--profile] [--no-readme] [--label TEXT] [--api-root DIR]
           [--built DIR] [--mail-on-disk] [--only minimal,sign-up,login,refresh,me,magic-link,password-reset,mixed,proxy,user-search,startup,memory]`;

export function parseArgs(argv: string[]): BenchArgs {
  const args: BenchArgs = {
    cost: 12,
    seconds: 5,
    connections: 10,
    sweep: [1, 10, 50],
    million: false,
    peer: true,
    embedded: true,
    profile: false,
    writeReadme: true,
    label: 'run',
    apiRoot: null,
    built: null,
    mailOnDisk: false,
    only: null,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${flag} needs a value.\n${USAGE}`);
      return next;
    };
    if (flag === '--quick') args.seconds = 2;
    else if (flag === '--seconds') args.seconds = positive(flag, value());
    else if (flag === '--cost') args.cost = positive(flag, value());
    else if (flag === '--connections') args.connections = positive(flag, value());
    else if (flag === '--million') args.million = true;
    else if (flag === '--no-peer') args.peer = false;
    else if (flag === '--no-embedded') args.embedded = false;
    else if (flag === '--profile') args.profile = true;
    else if (flag === '--no-readme') args.writeReadme = false;
    else if (flag === '--label') args.label = value();
    else if (flag === '--api-root') args.apiRoot = value();
    else if (flag === '--built') args.built = value();
    else if (flag === '--mail-on-disk') args.mailOnDisk = true;
    else if (flag === '--only') args.only = value().split(',');
    else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`Unknown flag ${flag}.\n${USAGE}`);
  }
  if (args.cost < 4 || args.cost > 15) throw new Error('--cost must be from 4 to 15 (what SVC_BCRYPT_COST accepts).');
  if (!args.sweep.includes(args.connections)) args.sweep = [...args.sweep, args.connections].sort((a, b) => a - b);
  return args;
}

function positive(flag: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer.`);
  return n;
}
