import { runCli } from '../src/cli';
import type { Migrator } from '../src/cli/migrate-command';

// `svc migrate [--check]` through the CLI's entry, with a recording migrator: exit codes, output,
// and that migrating never opens the service (which would itself migrate at start).

function harness(pending: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const ran: string[][] = [];
  const migrator: Migrator = {
    pending: async () => [...pending],
    run: async () => {
      ran.push([...pending]);
      return pending.splice(0);
    },
  };
  const openService = async () => {
    throw new Error('svc migrate must not open the service');
  };
  const run = (...argv: string[]) => runCli(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t) }, openService, () => migrator);
  return { run, out, err, ran, json: () => JSON.parse(out.pop()!) };
}

describe('pnpm svc migrate', () => {
  it('--check lists pending migrations with exit 1 and changes nothing; migrate runs them; --check is then 0', async () => {
    const cli = harness(['A1', 'B2']);
    expect(await cli.run('migrate', '--check')).toBe(1);
    expect(cli.json()).toEqual({ upToDate: false, pending: ['A1', 'B2'] });
    expect(cli.ran).toEqual([]);
    expect(await cli.run('migrate')).toBe(0);
    expect(cli.json()).toEqual({ ran: ['A1', 'B2'] });
    expect(await cli.run('migrate', '--check')).toBe(0);
    expect(cli.json()).toEqual({ upToDate: true, pending: [] });
    expect(await cli.run('migrate')).toBe(0);
    expect(cli.json()).toEqual({ ran: [] });
  });

  it('takes no arguments, and the usage names it', async () => {
    const cli = harness([]);
    expect(await cli.run('migrate', 'now')).toBe(2);
    expect(cli.err.join('')).toContain('migrate [--check]');
    expect(cli.ran).toEqual([]);
  });
});
