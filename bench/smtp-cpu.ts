// `tsx bench/smtp-cpu.ts [--before DIR] [--mails N] [--pairs N]`: CPU time the SMTP mailer
// (`SmtpMailer`, what SMTP_URL configures) spends per mail, this tree against the tree in DIR
// (default /work/main: a checkout without the change), in interleaved pairs whose order
// alternates. Each measurement is a process of its own that sends N magic-link-sized mails
// (after N/5 of warm-up) through a pooled SmtpMailer, 10 in flight as the outbox worker sends
// them, to an SMTP server on loopback in another process (smtp-server, each message read and
// dropped), and reads its own process.cpuUsage() around them. The server's CPU is not counted.
// Not part of `pnpm bench`.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pairArgs } from './lib/pair-args';

const { flag, here, before, mails, pairs, role } = pairArgs({ mails: 5000, pairs: 3 });
const IN_FLIGHT = 10;

interface Measured {
  mails: number;
  userUs: number;
  systemUs: number;
}

interface SmtpServerModule {
  SMTPServer: new (options: object) => { listen(port: number, host: string, ready: () => void): void; server: { address(): AddressInfo | string | null } };
}

/** An SMTP server on loopback that accepts every message and drops it; prints its port. */
async function serve(): Promise<void> {
  // smtp-server is a dependency of packages/adapters-smtp (its test server), not of the bench.
  const { SMTPServer } = createRequire(join(here, 'packages/adapters-smtp/package.json'))('smtp-server') as SmtpServerModule;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData: (stream: NodeJS.ReadableStream, _session: unknown, done: () => void) => {
      stream.on('data', () => undefined);
      stream.on('end', () => done());
    },
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  process.stdout.write(`${(server.server.address() as AddressInfo).port}\n`);
}

type Mailer = Pick<import('../packages/adapters-smtp/src/smtp-mailer').SmtpMailer, 'send' | 'close'>;

/** Sends `count` magic-link-sized mails, 10 in flight. */
async function send(mailer: Mailer, count: number, offset: number): Promise<void> {
  let next = 0;
  const slot = async () => {
    for (let i = next++; i < count; i = next++) {
      const n = offset + i;
      const link = `https://app.acme.test/auth/magic?token=ml_live_${n.toString(36).padStart(43, 'x')}&project=4f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b`;
      const code = String(n % 1e6).padStart(6, '0');
      await mailer.send({
        to: `user${n}@example.test`,
        subject: 'Your sign-in link for Acme',
        text: `Hello,\n\nuse this link to sign in to Acme:\n\n${link}\n\nOr enter this code: ${code}\n`,
        html: `<p>Hello,</p><p><a href="${link}">Sign in to Acme</a></p><p>Or enter this code: <strong>${code}</strong></p>`,
        messageId: `<bench-${n}@svc>`,
      });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, slot));
}

/** One measurement: the SmtpMailer of the tree at `root`, warmed up, then `mails` sends. */
async function client(root: string, port: number): Promise<void> {
  const { SmtpMailer } = require(join(root, 'packages/adapters-smtp/src/smtp-mailer.ts')) as typeof import('../packages/adapters-smtp/src/smtp-mailer');
  const mailer: Mailer = new SmtpMailer(`smtp://127.0.0.1:${port}`, { from: 'Acme <no-reply@acme.test>' });
  await send(mailer, Math.ceil(mails / 5), 0);
  const start = process.cpuUsage();
  await send(mailer, mails, mails);
  const used = process.cpuUsage(start);
  mailer.close();
  const measured: Measured = { mails, userUs: used.user, systemUs: used.system };
  process.stdout.write(`${JSON.stringify(measured)}\n`);
}

/** Runs this script with `args` under tsx; resolves with its first line of output (the process keeps running for `serve`). */
function run(args: string[], keep = false): Promise<{ line: string; stop: () => void }> {
  const child = spawn(process.execPath, [...process.execArgv, __filename, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((done, fail) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const end = out.indexOf('\n');
      if (end >= 0 && keep) done({ line: out.slice(0, end), stop: () => child.kill() });
    });
    child.on('exit', (code) => (code === 0 ? done({ line: out.trim(), stop: () => undefined }) : fail(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

async function compare(): Promise<void> {
  const server = await run(['--role', 'serve'], true);
  const port = server.line;
  const perMail = (m: Measured) => (m.userUs + m.systemUs) / m.mails;
  const rows: string[] = ['| pair | order | before µs/mail (user + system) | after | ratio |', '| --- | --- | ---: | ---: | ---: |'];
  try {
    for (let pair = 1; pair <= pairs; pair++) {
      const order = pair % 2 === 1 ? [before, here] : [here, before];
      const results = new Map<string, Measured>();
      for (const root of order) {
        const { line } = await run(['--role', 'client', '--root', root, '--port', port, '--mails', String(mails)]);
        results.set(root, JSON.parse(line) as Measured);
      }
      const [b, a] = [results.get(before)!, results.get(here)!];
      const fmt = (m: Measured) => `${perMail(m).toFixed(0)} (${(m.userUs / m.mails).toFixed(0)} + ${(m.systemUs / m.mails).toFixed(0)})`;
      rows.push(`| ${pair} | ${order[0] === before ? 'before first' : 'after first'} | ${fmt(b)} | ${fmt(a)} | ${(perMail(a) / perMail(b)).toFixed(2)} |`);
      process.stderr.write(`${rows.at(-1)}\n`);
    }
  } finally {
    server.stop();
  }
  process.stdout.write(`${mails} mails per run, ${IN_FLIGHT} in flight\n${rows.join('\n')}\n`);
}

if (role === 'serve') void serve();
else if (role === 'client') void client(resolve(flag('--root') ?? here), Number(flag('--port')));
else void compare();
