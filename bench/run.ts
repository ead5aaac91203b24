// `pnpm bench`: the API's throughput and latency per endpoint, each beside a ceiling measured in the
// same run on the same machine, and a peer (better-auth). See bench/README.md for what each row means.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from './lib/args';
import { bcryptCompareCeiling, bcryptHashCeiling, cores, scryptCeiling, POOL_SIZE } from './lib/ceilings';
import { sweepChart } from './lib/chart';
import { Bench, dividedBy, type BenchResults } from './lib/context';
import { createDatabase, dropDatabase } from './lib/database';
import { cpuBusyShare, QUIET_SHARE, round, settle } from './lib/load';
import { mailboxFolder } from './lib/mailbox-folder';
import { quietDisk } from './lib/quiet-disk';
import { ROOT } from './lib/processes';
import { runProfile } from './lib/profile-run';
import { summaryMarkdown, writeJson, writeReadmeSummary } from './lib/report';
import { builtSuite } from './lib/suite-built';
import { embeddedSuite } from './lib/suite-embedded';
import { peerSuite } from './lib/suite-peer';
import { postgresSuite, type RunScope } from './lib/suite-postgres';
import { clearRedisPrefix } from './lib/svc';
import { judgeTargets } from './lib/targets';

/**
 * How long a run waits for the CPUs to fall quiet before it starts: the tail of a run just before
 * (its build, its servers stopping) is over by then, and what is left is other work.
 */
const QUIET_WAIT_SECONDS = 60;
/** The window over which the CPUs' busy share at the start is measured. */
const START_WINDOW_MS = 2000;

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const id = `${process.pid}_${Date.now().toString(36)}`;
  const tmp = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const mailboxes = mailboxFolder(tmp, args.mailOnDisk);
  const scope: RunScope = { tmp, mailboxes: mailboxes.dir, database: `svc_bench_${id}`, redisPrefix: `svcbench:${id}:`, children: new Set(), cleanups: [] };
  scope.cleanups.push(() => (process.env.BENCH_KEEP_TMP ? undefined : mailboxes.remove()));
  // Ctrl-C still stops the children and drops the database.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanUp(scope).finally(() => process.exit(130)));
  if (args.profile) return runProfile(args, scope).finally(() => cleanUp(scope));
  // The CPUs' own busy share decides whether other work shares the machine. The 1-minute load
  // average, kept for the record, trails by minutes: four minutes after a run it still read 1.09
  // on CPUs 1 % busy (bench/README.md, round 21).
  await settle(QUIET_WAIT_SECONDS);
  const cpuBusyBefore = round(await cpuBusyShare(START_WINDOW_MS), 2);
  const loadBefore = loadavg();
  const results: BenchResults = {
    date: new Date().toISOString(),
    label: args.label,
    args,
    rows: [],
    sweep: {},
    ceilings: {},
    targets: [],
    notes: [],
    machine: { cores, node: process.versions.node, loadBefore, cpuBusyBefore, busy: cpuBusyBefore >= QUIET_SHARE, mailboxes: mailboxes.where },
  };
  const bench = new Bench(args, results);
  bench.log(`svc bench: ${cores} cores, libuv pool ${POOL_SIZE}, bcrypt cost ${args.cost}, ${args.seconds} s per row, ${args.connections} connections (sweep ${args.sweep.join('/')})`);
  bench.log('Rate limits are raised for the run (SVC_RATE_LIMITS): the rows measure throughput, not 429s.');
  if (results.machine.busy) {
    const note = `The machine was busy when the run started (its CPUs ${Math.round(cpuBusyBefore * 100)} % busy over ${START_WINDOW_MS / 1000} s after up to ${QUIET_WAIT_SECONDS} s of waiting for quiet; 1-min load average ${loadBefore[0].toFixed(2)}): other work shared the cores, so every figure is low.`;
    results.notes.push(note);
    bench.log(`WARNING: ${note}`);
  }
  const disk = await quietDisk();
  bench.log(`Disk: CHECKPOINT and write-back waited ${disk.seconds} s${disk.pendingMb === null ? '' : `; ${disk.pendingMb} MB still pending`}.`);
  if (disk.pendingMb !== null && disk.pendingMb > 32)
    results.notes.push(`The disk was still writing back ${disk.pendingMb} MB after ${disk.seconds} s when the run started: rows touching PostgreSQL may sag.`);
  try {
    await measureHashCeilings(bench);
    await createDatabase(scope.database);
    await postgresSuite(bench, scope);
    if (args.peer) await peerSuite(bench, scope);
    if (args.embedded) await embeddedSuite(bench, scope);
    if (bench.wants('startup') || bench.wants('memory')) await builtSuite(bench, scope);
    // Measured again at the end and the higher figure kept: a moment of outside load during one
    // measurement would otherwise flatter every ratio divided by it.
    await measureHashCeilings(bench);
  } finally {
    await cleanUp(scope);
  }
  results.machine.loadAfter = loadavg();
  results.targets = judgeTargets(results);
  report(bench, results);
}

async function measureHashCeilings(bench: Bench): Promise<void> {
  const { args, results } = bench;
  bench.log(`\n-- ceilings: password hashes on the libuv pool, ${POOL_SIZE} at a time --`);
  for (const [name, measure] of [
    ['bcrypt compare', () => bcryptCompareCeiling(args.cost, args.seconds)],
    ['bcrypt hash', () => bcryptHashCeiling(args.cost, args.seconds)],
    ['scrypt', () => scryptCeiling(args.seconds)],
  ] as const) {
    await settle();
    const measured = await measure();
    bench.log(`  ${measured.name}: ${measured.perSecond}/s, one alone ${measured.singleMs} ms`);
    const kept = results.ceilings[name];
    if (kept && kept.perSecond >= measured.perSecond) continue;
    results.ceilings[name] = measured;
    // Rows already divided by the lower figure are divided again.
    for (const row of results.rows) {
      if (row.ceiling?.name !== name) continue;
      Object.assign(row, dividedBy({ name, perSecond: measured.perSecond }, row.result));
    }
  }
}

function report(bench: Bench, results: BenchResults): void {
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = results.date.slice(0, 19).replace(/:/g, '-');
  const name = `${stamp}${results.label === 'run' ? '' : `-${results.label}`}`;
  writeJson(join(dir, `${name}.json`), results);
  writeFileSync(join(dir, `${name}.svg`), sweepChart(`svc bench ${results.date.slice(0, 16)}: req/s and p99 against connections`, results.sweep));
  const summary = summaryMarkdown(results);
  bench.log(`\n== summary ==\n${summary}\n\nResults: bench/results/${name}.json, chart bench/results/${name}.svg`);
  if (results.args.writeReadme)
    writeReadmeSummary(join(ROOT, 'bench', 'README.md'), summary, `Full results: [results/${name}.json](results/${name}.json); chart: [results/${name}.svg](results/${name}.svg).`);
}

/** Stops every child still running, drops the bench database and Redis keys, removes the scratch folder. */
async function cleanUp(scope: RunScope): Promise<void> {
  await Promise.allSettled([...scope.children].map((child) => child.stop()));
  scope.children.clear();
  for (const cleanup of scope.cleanups.splice(0)) await Promise.resolve(cleanup()).catch(() => undefined);
  await dropDatabase(scope.database).catch((error: unknown) => process.stderr.write(`dropping ${scope.database} failed: ${String(error)}\n`));
  await clearRedisPrefix(scope.redisPrefix).catch(() => undefined);
  if (!process.env.BENCH_KEEP_TMP) rmSync(scope.tmp, { recursive: true, force: true });
  else process.stdout.write(`scratch folder kept: ${scope.tmp}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
