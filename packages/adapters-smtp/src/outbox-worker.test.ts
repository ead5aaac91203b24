import { DEFAULT_DELIVERY_POLICY, deliveryClaim, MailDeliveryError, outboxSealContext, type DeliveryDeps } from '@svc/core';
import { createInMemoryDeps, RecordingMailer, seedScope } from '@svc/core/testing';
import { OutboxWorker, withEnqueueHook } from './outbox-worker';
import { SmtpMailer } from './smtp-mailer';
import { startTestSmtpServer } from './testing';

const quiet = { info: () => undefined, warn: () => undefined };

async function setup() {
  const deps = createInMemoryDeps();
  const mailer = new RecordingMailer();
  const delivery: DeliveryDeps = { ...deps, mailer };
  const scope = await seedScope(deps);
  const enqueue = async (to: string) => {
    const id = deps.random.uuid();
    const payload = JSON.stringify({ subject: 's', text: 't', html: 'h', links: [] });
    await deps.outbox.enqueue(scope, {
      id,
      to,
      template: 'magic_link',
      sealedPayload: deps.secretBox.seal(payload, outboxSealContext(id)),
      createdAt: deps.clock.now(),
      expiresAt: new Date(deps.clock.now().getTime() + 900_000),
    });
    return id;
  };
  return { deps, mailer, delivery, enqueue };
}

describe('OutboxWorker', () => {
  it('runOnce drains the outbox in full rounds', async () => {
    const { mailer, delivery, enqueue } = await setup();
    for (let i = 0; i < 7; i += 1) await enqueue(`u${i}@example.test`);
    const worker = new OutboxWorker(delivery, { logger: quiet, policy: { batchSize: 3 } });
    expect(await worker.runOnce()).toEqual({ claimed: 7, sent: 7, retried: 0, dead: 0, released: 0 });
    expect(mailer.sent).toHaveLength(7);
    expect(await worker.runOnce()).toEqual({ claimed: 0, sent: 0, retried: 0, dead: 0, released: 0 });
  });

  it('stop() mid-round: no further send or round; the rest of the claim is pending, due at once; a later runOnce sends again', async () => {
    const { deps, delivery, enqueue } = await setup();
    for (let i = 0; i < 9; i += 1) await enqueue(`u${i}@example.test`);
    const sent: string[] = [];
    // The first send is held until the test lets it go, so the stop lands while it is in flight
    // however slow the machine (a timer could end it before the stop).
    let releaseFirst = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const mailer = {
      send: async (message: { messageId: string }) => {
        sent.push(message.messageId);
        if (sent.length === 1) await firstHeld;
        return { messageId: message.messageId };
      },
    };
    const worker = new OutboxWorker({ ...delivery, mailer }, { logger: quiet, policy: { batchSize: 3, concurrency: 1 } });
    const round = worker.runOnce();
    while (sent.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const stopped = worker.stop();
    releaseFirst();
    expect(await round).toEqual({ claimed: 3, sent: 1, retried: 0, dead: 0, released: 2 });
    await stopped;
    expect(sent).toHaveLength(1);
    expect(await deps.outbox.stats()).toMatchObject({ sent: 1, pending: 8, sending: 0 });
    // Released mails are due at once: the next round (another instance, or the next start) takes them.
    expect(await worker.runOnce()).toEqual({ claimed: 8, sent: 8, retried: 0, dead: 0, released: 0 });
  });

  it('claims 50 at a time, sends at most 10 at once, and marks each claim in one write', async () => {
    const { deps, delivery, enqueue } = await setup();
    for (let i = 0; i < 120; i += 1) await enqueue(`u${i}@example.test`);
    let inFlight = 0;
    let peak = 0;
    const mailer = {
      send: async (message: { messageId: string }) => {
        peak = Math.max(peak, (inFlight += 1));
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight -= 1;
        return { messageId: message.messageId };
      },
    };
    const claims: number[] = [];
    const marks: number[] = [];
    const outbox = {
      ...deps.outbox,
      claimDue: async (now: Date, options: { limit: number; leaseSeconds: number }) => {
        expect(options).toEqual(deliveryClaim(DEFAULT_DELIVERY_POLICY));
        const mails = await deps.outbox.claimDue(now, options);
        claims.push(mails.length);
        return mails;
      },
      markSent: async (sent: Parameters<typeof deps.outbox.markSent>[0]) => {
        marks.push(sent.length);
        return deps.outbox.markSent(sent);
      },
    };
    const worker = new OutboxWorker({ ...delivery, outbox, mailer }, { logger: quiet });
    expect(await worker.runOnce()).toEqual({ claimed: 120, sent: 120, retried: 0, dead: 0, released: 0 });
    expect(claims).toEqual([50, 50, 20]);
    expect(marks).toEqual([50, 50, 20]);
    expect(peak).toBe(10);
  });

  it('runs on its own once started, wakes on enqueue, and stops cleanly', async () => {
    const { deps, mailer, delivery, enqueue } = await setup();
    let worker: OutboxWorker | undefined;
    const outbox = withEnqueueHook(deps.outbox, () => worker?.wake());
    worker = new OutboxWorker({ ...delivery, outbox }, { logger: quiet, intervalMs: 60_000 });
    worker.start();
    await enqueue('early@example.test');
    await waitFor(() => mailer.sent.length === 1);
    // The poll interval is a minute: only wake() can make this one leave at once.
    await outbox.enqueue(...(await hookedMail(deps, 'late@example.test')));
    await waitFor(() => mailer.sent.length === 2);
    await worker.stop();
    await enqueue('after@example.test');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(mailer.sent.map((m) => m.to)).toEqual(['early@example.test', 'late@example.test']);
  });

  it('logs failures and keeps going after a failed round', async () => {
    const { deps, mailer, delivery, enqueue } = await setup();
    const warnings: string[] = [];
    const broken = { ...deps.outbox, claimDue: async () => Promise.reject(new Error('database away')) };
    const worker = new OutboxWorker({ ...delivery, outbox: broken }, { logger: { info: () => undefined, warn: (_d, m) => warnings.push(m) }, intervalMs: 10 });
    worker.start();
    await waitFor(() => warnings.length >= 2);
    await worker.stop();
    expect(warnings[0]).toBe('outbox round failed');

    mailer.failNext(new MailDeliveryError('451 later', { permanent: false }));
    await enqueue('retry@example.test');
    const healthy = new OutboxWorker(delivery, { logger: { info: () => undefined, warn: (_d, m) => warnings.push(m) } });
    expect(await healthy.runOnce()).toMatchObject({ retried: 1 });
    expect(warnings.at(-1)).toMatch(/failed/);
  });

  it('logs why mails failed, as the SMTP server said it, with addresses masked and no secret', async () => {
    const { delivery, enqueue } = await setup();
    const server = await startTestSmtpServer();
    try {
      server.refusal = { code: 550, message: 'Mailbox unavailable for ada.lovelace@example.test' };
      const mailer = new SmtpMailer(server.url.replace('smtp://', 'smtp://svc:hunter2-secret@'), { from: 'svc <no-reply@svc.test>', connectTimeoutSeconds: 2 });
      const lines: { details: Record<string, unknown>; message: string }[] = [];
      const logger = { info: () => undefined, warn: (details: object, message: string) => lines.push({ details: details as Record<string, unknown>, message }) };
      await enqueue('ada.lovelace@example.test');
      const worker = new OutboxWorker({ ...delivery, mailer }, { logger });
      expect(await worker.runOnce()).toMatchObject({ claimed: 1, retried: 1 });
      expect(lines).toHaveLength(1);
      expect(lines[0].message).toMatch(/^outbox: some mails failed \(retried later or dead-lettered\): .*550 Mailbox unavailable for a\*\*\*@example\.test/);
      expect(lines[0].details.reasons).toEqual([expect.stringContaining('550 Mailbox unavailable for a***@example.test')]);
      expect(JSON.stringify(lines)).not.toMatch(/ada\.lovelace|hunter2/);
      mailer.close();
    } finally {
      await server.stop();
    }
  });
});

async function hookedMail(deps: ReturnType<typeof createInMemoryDeps>, to: string) {
  const scope = await seedScope(deps);
  const id = deps.random.uuid();
  const payload = JSON.stringify({ subject: 's', text: 't', html: 'h', links: [] });
  const mail = {
    id,
    to,
    template: 'magic_link' as const,
    sealedPayload: deps.secretBox.seal(payload, outboxSealContext(id)),
    createdAt: deps.clock.now(),
    expiresAt: new Date(deps.clock.now().getTime() + 900_000),
  };
  return [scope, mail] as const;
}

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
