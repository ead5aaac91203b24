// `tsx bench/compose-cpu.ts [--before DIR] [--mails N] [--pairs N]`: CPU time the composition of
// one mail costs, alone (no transport, no file): this tree's `composeUnixMessage` and
// `composeSmtpMessage` (packages/adapters-smtp/src/mime-compose.ts, what the file mailbox and the
// SMTP mailer call) against the tree in DIR (default /work/main: a checkout without the change), in
// interleaved pairs whose order alternates. Each measurement is a process of its own that composes
// N magic-link-sized mails (as `nodemailerMessage` shapes the outbox's mails, after 2,000 of
// warm-up) and reads its own process.cpuUsage() around them. Not part of `pnpm bench`.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pairArgs } from './lib/pair-args';

const { flag, here, before, mails, pairs, role } = pairArgs({ mails: 5000, pairs: 3 });
const WARM_UP = 2000;

type Compose = typeof import('../packages/adapters-smtp/src/mime-compose');
type Message = typeof import('../packages/adapters-smtp/src/nodemailer-message');

/** One measurement: `mails` compositions by the tree at `root`, for the file mailbox (`unix`) or SMTP. */
async function client(root: string, kind: string): Promise<void> {
  const { composeUnixMessage, composeSmtpMessage, compositionChecked } = require(join(root, 'packages/adapters-smtp/src/mime-compose.ts')) as Partial<Compose> &
    Pick<Compose, 'composeUnixMessage' | 'composeSmtpMessage'>;
  // Trees since the check compose nothing until it passed (as the mailers await it); older ones have no check.
  if (compositionChecked && !(await compositionChecked())) throw new Error(`${root}: the compositions disagree with the installed nodemailer`);
  const { nodemailerMessage } = require(join(root, 'packages/adapters-smtp/src/nodemailer-message.ts')) as Message;
  const mail = (n: number) => {
    const link = `https://app.acme.test/auth/magic?token=ml_live_${n.toString(36).padStart(43, 'x')}&project=4f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b`;
    const code = String(n % 1e6).padStart(6, '0');
    return nodemailerMessage('Acme <no-reply@acme.test>', {
      to: `user${n}@example.test`,
      subject: 'Your sign-in link for Acme',
      text: `Hello,\n\nuse this link to sign in to Acme:\n\n${link}\n\nOr enter this code: ${code}\n`,
      html: `<p>Hello,</p><p><a href="${link}">Sign in to Acme</a></p><p>Or enter this code: <strong>${code}</strong></p>`,
      messageId: `<bench-${n}@svc>`,
    });
  };
  const compose = kind === 'smtp' ? (n: number) => composeSmtpMessage(mail(n))?.raw.length ?? 0 : (n: number) => composeUnixMessage(mail(n))?.length ?? 0;
  let bytes = 0;
  for (let n = 0; n < WARM_UP; n++) bytes += compose(n);
  const start = process.cpuUsage();
  for (let n = WARM_UP; n < WARM_UP + mails; n++) bytes += compose(n);
  const used = process.cpuUsage(start);
  process.stdout.write(`${JSON.stringify({ mails, userUs: used.user, systemUs: used.system, bytes })}\n`);
}

/** Runs this script with `args` under tsx; resolves with its output. */
function run(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [...process.execArgv, __filename, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((done, fail) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('exit', (code) => (code === 0 ? done(out.trim()) : fail(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

async function compare(): Promise<void> {
  const perMail = (m: { mails: number; userUs: number; systemUs: number }) => (m.userUs + m.systemUs) / m.mails;
  const rows: string[] = ['| pair | kind | order | before µs/mail | after | ratio |', '| --- | --- | --- | ---: | ---: | ---: |'];
  for (let pair = 1; pair <= pairs; pair++) {
    for (const kind of ['unix', 'smtp']) {
      const order = pair % 2 === 1 ? [before, here] : [here, before];
      const results = new Map<string, { mails: number; userUs: number; systemUs: number }>();
      for (const root of order) results.set(root, JSON.parse(await run(['--role', 'client', '--root', root, '--kind', kind, '--mails', String(mails)])));
      const [b, a] = [results.get(before)!, results.get(here)!];
      rows.push(`| ${pair} | ${kind} | ${order[0] === before ? 'before first' : 'after first'} | ${perMail(b).toFixed(1)} | ${perMail(a).toFixed(1)} | ${(perMail(a) / perMail(b)).toFixed(2)} |`);
      process.stderr.write(`${rows.at(-1)}\n`);
    }
  }
  process.stdout.write(`${mails} mails per run after ${WARM_UP} of warm-up\n${rows.join('\n')}\n`);
}

const main = role === 'client' ? client(resolve(flag('--root') ?? here), flag('--kind') ?? 'unix') : compare();
main.catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
