import { MailDeliveryError, outboxSealContext } from '../src/domain/mail';
import { deliverOutbox, nextAttemptAt, retryDelaySeconds, DEFAULT_DELIVERY_POLICY } from '../src/use-cases/email/deliver-outbox';
import { createInMemoryDeps } from '../src/testing/in-memory-deps';
import { RecordingMailer } from '../src/testing/recording-mailer';
import { seedScope } from '../src/testing/storage-fixture';
import type { Random } from '../src/ports/random';

const fixedRandom = (fraction: number): Random => ({
  bytes: (n) => {
    const bytes = new Uint8Array(n);
    new DataView(bytes.buffer).setUint32(0, Math.floor(fraction * 2 ** 32));
    return bytes;
  },
  uuid: () => globalThis.crypto.randomUUID(),
});

async function setup(environment: 'production' | 'sandbox' = 'production') {
  const deps = createInMemoryDeps();
  const mailer = new RecordingMailer();
  const scope = await seedScope(deps, environment);
  const enqueue = async (payload: object | string = { subject: 'Hi', text: 'link', html: '<a>link</a>', links: ['https://x.test'] }, ttlSeconds = 900) => {
    const id = deps.random.uuid();
    const sealedPayload = typeof payload === 'string' ? payload : deps.secretBox.seal(JSON.stringify(payload), outboxSealContext(id));
    const now = deps.clock.now();
    await deps.outbox.enqueue(scope, { id, to: 'ada@example.test', template: 'magic_link', sealedPayload, createdAt: now, expiresAt: new Date(now.getTime() + ttlSeconds * 1000) });
    return id;
  };
  // Jitter at its top: each delay is exactly its cap, so the timeline below is deterministic.
  return { deps, mailer, scope, enqueue, run: () => deliverOutbox({ ...deps, random: fixedRandom(0.999999), mailer }) };
}

describe('deliverOutbox', () => {
  it('sends with the stable Message-ID and wipes production payloads', async () => {
    const { deps, mailer, scope, enqueue, run } = await setup();
    const id = await enqueue();
    expect(await run()).toEqual({ claimed: 1, sent: 1, retried: 0, dead: 0 });
    expect(mailer.sent).toEqual([{ to: 'ada@example.test', subject: 'Hi', text: 'link', html: '<a>link</a>', messageId: `<${id}@svc>` }]);
    expect(await deps.outbox.listForAddress(scope, 'ada@example.test', 1)).toMatchObject([{ status: 'sent', sealedPayload: null, messageId: `<${id}@svc>` }]);
  });

  it('keeps sandbox payloads (sealed) for the sandbox outbox', async () => {
    const { deps, scope, enqueue, run } = await setup('sandbox');
    await enqueue();
    await run();
    expect((await deps.outbox.listForAddress(scope, 'ada@example.test', 1))[0].sealedPayload).toMatch(/^fake-sealed:/);
  });

  it('retries transient failures with backoff until maxAttempts, then dead-letters', async () => {
    const { deps, mailer, enqueue, run } = await setup();
    await enqueue(undefined, 365 * 24 * 3600);
    mailer.failAll();
    const outcomes = [];
    for (let i = 0; i < 11; i += 1) {
      outcomes.push(await run());
      deps.clock.advance(3600);
    }
    expect(outcomes.map((o) => (o.dead ? 'dead' : o.retried ? 'retry' : '-'))).toEqual([...Array(9).fill('retry'), 'dead', '-']);
  });

  it('dead-letters a failing mail early when its link would expire before the next try', async () => {
    const { deps, mailer, enqueue, run } = await setup();
    await enqueue(); // a 15-minute link, rounds a minute apart: tries at 0, 60, 120, 240, 480 s; the next (960 s) is too late
    mailer.failAll();
    const outcomes = [];
    for (let i = 0; i < 20; i += 1) {
      outcomes.push(await run());
      deps.clock.advance(60);
    }
    expect(outcomes.map((o) => (o.dead ? 'dead' : o.retried ? 'retry' : '-')).filter((o) => o !== '-')).toEqual(['retry', 'retry', 'retry', 'retry', 'dead']);
    expect(mailer.attempts).toHaveLength(5);
  });

  it('dead-letters a refused mail after maxPermanentAttempts, a mail whose payload does not open at once', async () => {
    const { deps, mailer, enqueue, run } = await setup();
    await enqueue();
    const refusal = () => new MailDeliveryError('550 unknown user', { permanent: true, responseCode: 550 });
    mailer.failNext(refusal(), refusal(), refusal());
    expect(await run()).toMatchObject({ retried: 1 });
    deps.clock.advance(30);
    expect(await run()).toMatchObject({ retried: 1 });
    deps.clock.advance(60);
    expect(await run()).toMatchObject({ dead: 1 });
    await enqueue('not sealed by this box');
    expect(await run()).toMatchObject({ dead: 1 });
    expect(mailer.sent).toEqual([]);
  });

  it("records a round's sends in one write, and its failures each at once", async () => {
    const { deps, mailer, scope, enqueue, run } = await setup();
    const ids = [await enqueue(), await enqueue(), await enqueue()];
    mailer.failNext(new MailDeliveryError('451 try later', { permanent: false }));
    const writes: string[][] = [];
    const markSent = deps.outbox.markSent.bind(deps.outbox);
    deps.outbox.markSent = async (sent) => {
      writes.push(sent.map((mark) => mark.id));
      return markSent(sent);
    };
    expect(await run()).toEqual({ claimed: 3, sent: 2, retried: 1, dead: 0 });
    expect(writes).toHaveLength(1);
    expect(writes[0].sort()).toEqual(ids.filter((id) => mailer.sent.some((m) => m.messageId === `<${id}@svc>`)).sort());
    const stored = await deps.outbox.listForAddress(scope, 'ada@example.test', 3);
    expect(stored.map((m) => m.status).sort()).toEqual(['pending', 'sent', 'sent']);
    // A round with nothing sent writes no marks.
    expect(await run()).toEqual({ claimed: 0, sent: 0, retried: 0, dead: 0 });
    expect(writes).toHaveLength(1);
  });

  it('a refusal dies at once with maxPermanentAttempts: 1', async () => {
    const { mailer, enqueue, deps } = await setup();
    await enqueue();
    mailer.failNext(new MailDeliveryError('554 rejected', { permanent: true }));
    expect(await deliverOutbox({ ...deps, mailer }, { maxPermanentAttempts: 1 })).toMatchObject({ dead: 1 });
  });
});

describe('retry timing', () => {
  it('doubles from 30 s to at most an hour, with jitter in [cap/2, cap]', () => {
    const caps = [1, 2, 3, 4, 8, 9, 20].map((n) => retryDelaySeconds(DEFAULT_DELIVERY_POLICY, n, fixedRandom(0.999999)));
    expect(caps.map(Math.round)).toEqual([30, 60, 120, 240, 3600, 3600, 3600]);
    expect(retryDelaySeconds(DEFAULT_DELIVERY_POLICY, 1, fixedRandom(0))).toBe(15);
  });

  it('gives up when out of tries or when the link would be dead by the next try', () => {
    const now = new Date('2026-01-01T00:00:00.000Z');
    const far = new Date('2027-01-01T00:00:00.000Z');
    const transient = new Error('ECONNREFUSED');
    const rules = DEFAULT_DELIVERY_POLICY;
    expect(nextAttemptAt(rules, { attempts: 9, expiresAt: far }, transient, now, fixedRandom(0.5))).not.toBeNull();
    expect(nextAttemptAt(rules, { attempts: 10, expiresAt: far }, transient, now, fixedRandom(0.5))).toBeNull();
    expect(nextAttemptAt(rules, { attempts: 1, expiresAt: new Date(now.getTime() + 10_000) }, transient, now, fixedRandom(0.5))).toBeNull();
  });
});
