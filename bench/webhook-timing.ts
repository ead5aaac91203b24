/**
 * How long from an event to its webhook at the receiver? The target is a median under one second.
 *
 *   tsx bench/webhook-timing.ts [--events 300] [--gap-ms 50]
 *
 * Starts the API as the bench does (NODE_ENV=production, PostgreSQL, Redis, limits raised) with
 * SVC_WEBHOOKS_ALLOW_PRIVATE=true, a receiver on loopback that answers 204, and one endpoint for
 * `user.created`; then signs up one user at a time and measures, from the moment the sign-up is
 * sent, when its answer and when its delivery arrive (the event is queued while the request runs,
 * so a delivery may arrive before the answer). Prints the medians and p90s, and the delivery
 * median's ratio to the one-second target and to the answer's median.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createDatabase, dropDatabase } from './lib/database';
import { ADMIN_TOKEN, createProject, startApi } from './lib/svc';

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const EVENTS = Number(argument('events') ?? 300);
const GAP_MS = Number(argument('gap-ms') ?? 50);
const WARMUP = 20;

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main(): Promise<void> {
  // Arrival time per user id, from the delivery's body.
  const arrived = new Map<string, bigint>();
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      arrived.set(JSON.parse(body).data.userId, process.hrtime.bigint());
      res.writeHead(204).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const id = randomBytes(4).toString('hex');
  const database = `svc_webhooktiming_${id}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-webhook-timing-'));
  await createDatabase(database);
  const api = await startApi({
    storage: { kind: 'postgres', database, redisPrefix: `svcbench:${id}:` },
    cost: 4,
    dataDir,
    logFile: join(dataDir, 'api.log'),
    root: null,
    env: { SVC_WEBHOOKS_ALLOW_PRIVATE: 'true' },
  });
  try {
    const project = await createProject(api.url);
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const created = await fetch(`${api.url}/admin/projects/${project.id}/environments/production/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, eventTypes: ['user.created'] }),
    });
    if (created.status !== 201) throw new Error(`create endpoint: ${created.status}`);
    const lags: number[] = [];
    const answers: number[] = [];
    for (let n = 0; n < WARMUP + EVENTS; n += 1) {
      const sentAt = process.hrtime.bigint();
      const answer = await fetch(`${api.url}/api/auth/signup`, {
        method: 'POST',
        headers: { 'x-api-key': project.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ email: `u${n}-${id}@example.test`, password: 'correct horse battery staple' }),
      });
      const answeredAt = process.hrtime.bigint();
      if (answer.status !== 201) throw new Error(`signup: ${answer.status}`);
      const userId = ((await answer.json()) as { data: { user: { id: string } } }).data.user.id;
      const until = Date.now() + 30_000;
      while (!arrived.has(userId)) {
        if (Date.now() > until) throw new Error('a delivery did not arrive within 30 s');
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      if (n >= WARMUP) {
        lags.push(Number(arrived.get(userId)! - sentAt) / 1e6);
        answers.push(Number(answeredAt - sentAt) / 1e6);
      }
      await new Promise((resolve) => setTimeout(resolve, GAP_MS));
    }
    const median = quantile(lags, 0.5);
    console.log(`sign-up sent -> answer:   median ${quantile(answers, 0.5).toFixed(1)} ms  p90 ${quantile(answers, 0.9).toFixed(1)} ms`);
    console.log(`sign-up sent -> delivery: median ${median.toFixed(1)} ms  p90 ${quantile(lags, 0.9).toFixed(1)} ms  (${lags.length} deliveries)`);
    console.log(`delivery median / 1 s target: ${(median / 1000).toFixed(4)}; delivery median / answer median: ${(median / quantile(answers, 0.5)).toFixed(3)}`);
  } finally {
    await api.stop();
    await dropDatabase(database);
    rmSync(dataDir, { recursive: true, force: true });
    receiver.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
