import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { BenchResults } from './context';

const START = '<!-- bench:summary:start -->';
const END = '<!-- bench:summary:end -->';

/** The one-screen summary: every row with its ratio, the mixed row, the targets. Markdown. */
export function summaryMarkdown(results: BenchResults): string {
  const { ceilings, machine } = results;
  const lines = [
    `Run \`${results.label}\` of ${results.date}: ${machine.cores} cores, Node ${machine.node}, bcrypt cost ${results.args.cost}, ${results.args.seconds} s per row, ` +
      `${results.args.connections} connections unless noted; ${startOf(machine)}${machine.busy ? ' (**machine busy: figures are low**)' : ''}. ` +
      'Rate limits raised for the run (SVC_RATE_LIMITS): throughput, not 429s.',
    '',
    `Hash ceilings on the libuv pool (${Object.values(ceilings)[0]?.parallel ?? 4} at a time): ` +
      Object.values(ceilings)
        .map((c) => `${c.name} ${c.perSecond}/s (one alone ${c.singleMs} ms)`)
        .join('; ') +
      '.',
    '',
    '| system | endpoint | req/s | p50 ms | p99 ms | errors | ceiling | ratio |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |',
    ...results.rows.map(
      (row) =>
        `| ${row.system} | ${row.endpoint} | ${row.result.rps} | ${row.result.p50} | ${row.result.p99} | ${row.result.errors} | ${row.ceiling ? `${row.ceiling.name} ${row.ceiling.perSecond}/s` : ''} | ${row.ratio !== undefined ? `${(row.ratio * 100).toFixed(0)} %` : ''} |`,
    ),
  ];
  const turned = results.rows.filter((row) => row.inTurn);
  if (turned.length > 0) {
    lines.push(
      '',
      `Measured in turn with their ceiling (${turned[0].inTurn!.rows.length} slices each, ABBA; the row's figures and the ceiling the medians of their slices), req/s per slice: ` +
        turned
          .map(
            (row) =>
              `${row.system} ${row.endpoint} ${row.inTurn!.rows.join(' / ')} against ${row.inTurn!.ceilings.join(' / ')}${row.beside ? ` (${row.beside.name} ${row.beside.slices.join(' / ')})` : ''}`,
          )
          .join('; ') +
        '.',
    );
  }
  const drained = results.rows.filter((row) => row.result.drainMs !== undefined);
  if (drained.length > 0) {
    lines.push(
      '',
      'Mail rows, req/s counted until the last mail is delivered; the answers alone, then the wait: ' +
        drained.map((row) => `${row.system} ${row.endpoint} ${row.result.answeredRps} req/s, then ${row.result.drainMs} ms`).join('; ') +
        `. The file mailboxes were ${machine.mailboxes === 'tmpfs' ? 'in memory (tmpfs)' : 'on the disk'}.`,
    );
  }
  if (results.loginAlone) {
    const alone = results.loginAlone;
    // Several runs as one (medians.ts) keep every run's slices, in order.
    const runs = Math.round(alone.logins.length / alone.slices);
    lines.push(
      '',
      `Login at one connection in turn with one bcrypt compare alone (${alone.slices} slices each, ABBA; each side the median of its slices${runs > 1 ? `, then of the ${runs} runs` : ''}): ` +
        `p50 ${alone.loginP50} ms against ${alone.compareMs} ms; per slice ${alone.logins.join(' / ')} ms against ${alone.compares.join(' / ')} ms.`,
    );
  }
  if (results.mixed) {
    const { login, me } = results.mixed;
    lines.push('', `Mixed: login at 16 connections ${login.rps} req/s while /me at ${me.connections} connections ${me.rps} req/s, p50 ${me.p50} ms, p99 ${me.p99} ms.`);
  }
  if (results.million) {
    lines.push(
      '',
      `${results.million.users.toLocaleString('en')} users (${results.million.slices ? `one of two new tenants, each with an API and a database of its own, grown in ${results.million.seedSeconds} s; each row the median of ${results.million.slices} slices taken in turn with those of the 1,000-user tenant below` : `seeded in ${results.million.seedSeconds} s`}): ` +
        results.million.rows.map((row) => `${row.endpoint} ${row.result.rps} req/s p50 ${row.result.p50} ms p99 ${row.result.p99} ms`).join('; ') +
        '.',
    );
    const search = results.million.userSearch;
    if (search) {
      lines.push(
        '',
        `Admin user search (\`?q=\` with its total, one request at a time): p95 ${search.at1M.p95} ms at ${results.million.users.toLocaleString('en')} users, ` +
          `${search.p95Ratio}x its p95 at 1,000 users (${search.at1k.p95} ms) in the same run.`,
      );
    }
    if (results.million.baseline) {
      lines.push(
        '',
        (results.million.slices ? 'The same rows on the other new tenant, of 1,000 users, in turn with those: ' : 'The same rows at 1,000 users just before growing: ') +
          results.million.baseline.map((row) => `${row.endpoint} ${row.result.rps} req/s p50 ${row.result.p50} ms p99 ${row.result.p99} ms`).join('; ') +
          '.',
      );
    }
  }
  const { startup, memory } = results;
  for (const [storage, name] of [
    ['sqlite', 'embedded default'],
    ['postgres', 'PostgreSQL + Redis'],
  ] as const) {
    const figures = startup?.[storage];
    if (figures)
      lines.push(
        '',
        `Built server (\`node dist/cli.js start\` as the image runs it), ${name}: ready (/healthz 200) ${figures.readyMs} ms after spawn (restarts on migrated storage: ${figures.readyRuns.join(', ')} ms; first start with migrations ${figures.firstBootMs} ms), idle RSS ${figures.idleRssMb} MB.`,
      );
  }
  if (memory)
    lines.push(
      '',
      `Memory (built server, ${memory.storage}${memory.malloc ? `, malloc ${memory.malloc}` : ''}): idle ${memory.idleRssMb} MB; after ${memory.loadSeconds} s of mixed load (${memory.requests} requests, ${memory.errors} errors) ${memory.afterLoadRssMb} MB; after ${memory.restSeconds} s of rest${memory.drainSeconds === undefined ? '' : ` (begun ${memory.drainSeconds} s after the load, once the server's CPU was quiet)`} ${memory.afterRestRssMb} MB (${memory.ratio}x idle)${memory.restCpuMsPerSecond === undefined ? '' : `; CPU at rest (the rest's second half, every thread) ${memory.restCpuMsPerSecond} ms a second`}.`,
    );
  lines.push('', '| target | measured | met |', '| --- | --- | --- |');
  for (const t of results.targets) lines.push(`| ${t.target} | ${t.measured} | ${t.met === null ? 'not measured' : t.met ? 'yes' : '**no**'} |`);
  if (results.notes.length > 0) lines.push('', ...results.notes.map((note) => `- ${note}`));
  return lines.join('\n');
}

/** Replaces the summary between the markers of bench/README.md (appends it when they are missing). */
export function writeReadmeSummary(file: string, markdown: string, links: string): void {
  const block = `${START}\n${markdown}\n\n${links}\n${END}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# pnpm bench\n';
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const next = start >= 0 && end > start ? `${current.slice(0, start)}${block}${current.slice(end + END.length)}` : `${current.trimEnd()}\n\n## Latest summary\n\n${block}\n`;
  writeFileSync(file, next);
}

export function writeJson(file: string, results: BenchResults): void {
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}

/** How busy the machine was as the run started: the CPUs' share when measured (round 21 on), and the load average. */
function startOf(machine: BenchResults['machine']): string {
  const load = `1-min load average before ${machine.loadBefore[0].toFixed(2)}`;
  return machine.cpuBusyBefore === undefined ? load : `CPUs ${Math.round(machine.cpuBusyBefore * 100)} % busy before, ${load}`;
}
