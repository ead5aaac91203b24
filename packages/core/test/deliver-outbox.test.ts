import { MailDeliveryError, outboxSealContext } from '../src/domain/mail';
import { CLAIM_MARGIN_SECONDS, deliverOutbox, deliveryClaim, nextAttemptAt, retryDelaySeconds, DEFAULT_DELIVERY_POLICY } from '../src/use-cases/email/deliver-outbox';
import type { Mailer, OutgoingMail } from '../src/ports/mailer';
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
    expect(await run()).toEqual({ claimed: 1, sent: 1, retried: 0, dead: 0, released: 0 });
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
    expect(await run()).toEqual({ claimed: 3, sent: 2, retried: 1, dead: 0, released: 0 });
    expect(writes).toHaveLength(1);
    expect(writes[0].sort()).toEqual(ids.filter((id) => mailer.sent.some((m) => m.messageId === `<${id}@svc>`)).sort());
    const stored = await deps.outbox.listForAddress(scope, 'ada@example.test', 3);
    expect(stored.map((m) => m.status).sort()).toEqual(['pending', 'sent', 'sent']);
    // A round with nothing sent writes no marks.
    expect(await run()).toEqual({ claimed: 0, sent: 0, retried: 0, dead: 0, released: 0 });
    expect(writes).toHaveLength(1);
  });

  it('a refusal dies at once with maxPermanentAttempts: 1', async () => {
    const { mailer, enqueue, deps } = await setup();
    await enqueue();
    mailer.failNext(new MailDeliveryError('554 rejected', { permanent: true }));
    expect(await deliverOutbox({ ...deps, mailer }, { maxPermanentAttempts: 1 })).toMatchObject({ dead: 1 });
  });
});

/** A mailer whose sends take a few event-loop turns each, and that records how many were in flight at most. */
class SlowMailer implements Mailer {
  readonly sent: OutgoingMail[] = [];
  inFlight = 0;
  peak = 0;

  async send(message: OutgoingMail): Promise<{ messageId: string }> {
    this.inFlight += 1;
    this.peak = Math.max(this.peak, this.inFlight);
    for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
    this.inFlight -= 1;
    this.sent.push(message);
    return { messageId: message.messageId };
  }
}

describe('claims larger than the sends in flight', () => {
  it('sizes the lease to the whole claim, sent `concurrency` at a time', () => {
    expect(deliveryClaim(DEFAULT_DELIVERY_POLICY)).toEqual({ limit: 50, leaseSeconds: 5 * 60 + CLAIM_MARGIN_SECONDS });
    // 50 mails 7 at a time: a slot sends up to 8 of them one after another.
    expect(deliveryClaim({ batchSize: 50, concurrency: 7, sendTimeoutSeconds: 20 })).toEqual({ limit: 50, leaseSeconds: 8 * 20 + CLAIM_MARGIN_SECONDS });
    expect(deliveryClaim({ batchSize: 3, concurrency: 10, sendTimeoutSeconds: 20 })).toEqual({ limit: 3, leaseSeconds: 20 + CLAIM_MARGIN_SECONDS });
    expect(() => deliveryClaim({ batchSize: 50, concurrency: 0, sendTimeoutSeconds: 20 })).toThrow(RangeError);
    expect(() => deliveryClaim({ batchSize: 0, concurrency: 1, sendTimeoutSeconds: 20 })).toThrow(RangeError);
    expect(() => deliveryClaim({ batchSize: 5, concurrency: 1, sendTimeoutSeconds: 0 })).toThrow(RangeError);
  });

  it('claims 50 with that lease, never has more than 10 sends in flight, and marks the claim in one write', async () => {
    const { deps, enqueue } = await setup();
    for (let i = 0; i < 60; i += 1) await enqueue();
    const mailer = new SlowMailer();
    const claims: { limit: number; leaseSeconds: number }[] = [];
    const claimDue = deps.outbox.claimDue.bind(deps.outbox);
    deps.outbox.claimDue = (now, options) => {
      claims.push(options);
      return claimDue(now, options);
    };
    const writes: number[] = [];
    const markSent = deps.outbox.markSent.bind(deps.outbox);
    deps.outbox.markSent = async (sent) => {
      // Every send of the claim has ended before its one mark.
      expect(mailer.inFlight).toBe(0);
      writes.push(sent.length);
      return markSent(sent);
    };
    expect(await deliverOutbox({ ...deps, mailer })).toEqual({ claimed: 50, sent: 50, retried: 0, dead: 0, released: 0 });
    expect(mailer.peak).toBe(10);
    expect(claims).toEqual([deliveryClaim(DEFAULT_DELIVERY_POLICY)]);
    expect(writes).toEqual([50]);
    expect(await deliverOutbox({ ...deps, mailer }, { concurrency: 3 })).toEqual({ claimed: 10, sent: 10, retried: 0, dead: 0, released: 0 });
    expect(mailer.peak).toBe(10);
    expect(writes).toEqual([50, 10]);
  });

  it('keeps to `concurrency` when some of the sends fail', async () => {
    const { deps, enqueue } = await setup();
    for (let i = 0; i < 12; i += 1) await enqueue();
    const mailer = new SlowMailer();
    let calls = 0;
    const failing: Mailer = {
      send: async (message) => {
        calls += 1;
        if (calls % 3 === 0) throw new MailDeliveryError('451 later', { permanent: false });
        return mailer.send(message);
      },
    };
    expect(await deliverOutbox({ ...deps, mailer: failing }, { batchSize: 12, concurrency: 4 })).toEqual({ claimed: 12, sent: 8, retried: 4, dead: 0, released: 0 });
    expect(mailer.peak).toBeLessThanOrEqual(4);
  });

  it('sends a claim no larger than its concurrency although the claim itself took time', async () => {
    const { deps, enqueue } = await setup();
    for (let i = 0; i < 3; i += 1) await enqueue();
    // The claim's statement takes 20 ms, as a real database's does: the sends start after the claim's instant.
    const claimDue = deps.outbox.claimDue.bind(deps.outbox);
    deps.outbox.claimDue = async (...args) => {
      const mails = await claimDue(...args);
      deps.clock.advance(0.02);
      return mails;
    };
    const mailer = new RecordingMailer();
    expect(await deliverOutbox({ ...deps, mailer }, { batchSize: 3, concurrency: 10, sendTimeoutSeconds: 20 })).toEqual({ claimed: 3, sent: 3, retried: 0, dead: 0, released: 0 });
    expect(mailer.sent).toHaveLength(3);
  });

  it('sends the last wave of a claim whose sends each took their whole timeout, plus the moments between them', async () => {
    const { deps, enqueue } = await setup();
    for (let i = 0; i < 5; i += 1) await enqueue();
    const policy = { batchSize: 5, concurrency: 1, sendTimeoutSeconds: 10 };
    // Each send takes its 10 s and 5 ms more go by before the next (opening it, the event loop).
    const slow: Mailer = {
      send: async (message) => {
        deps.clock.advance(10.005);
        return { messageId: message.messageId };
      },
    };
    expect(await deliverOutbox({ ...deps, mailer: slow }, policy)).toEqual({ claimed: 5, sent: 5, retried: 0, dead: 0, released: 0 });
  });

  it('starts no send that could end after the lease: a slow server cannot make a claim outlive it', async () => {
    const { deps, scope, enqueue } = await setup();
    for (let i = 0; i < 5; i += 1) await enqueue();
    const policy = { batchSize: 5, concurrency: 1, sendTimeoutSeconds: 10 };
    const { leaseSeconds } = deliveryClaim(policy);
    const claimedAt = deps.clock.now().getTime();
    const starts: number[] = [];
    // Within its timeout: each send takes all of it, and the whole claim still goes out.
    const patient: Mailer = {
      send: async (message) => {
        starts.push(deps.clock.now().getTime() - claimedAt);
        deps.clock.advance(10);
        return { messageId: message.messageId };
      },
    };
    expect(await deliverOutbox({ ...deps, mailer: patient }, policy)).toMatchObject({ claimed: 5, sent: 5 });
    expect(starts).toEqual([0, 10_000, 20_000, 30_000, 40_000]);

    for (let i = 0; i < 5; i += 1) await enqueue();
    const before = deps.clock.now().getTime();
    const overrunStarts: number[] = [];
    // A mailer that overruns its timeout (25 s a send): the sends that could not end in time are not started.
    const overrunning: Mailer = {
      send: async (message) => {
        overrunStarts.push(deps.clock.now().getTime() - before);
        deps.clock.advance(25);
        return { messageId: message.messageId };
      },
    };
    expect(await deliverOutbox({ ...deps, mailer: overrunning }, policy)).toEqual({ claimed: 5, sent: 3, retried: 2, dead: 0, released: 0 });
    // Started at 0, 25 and 50 s: none later than lease - margin / 2 - one send (80 - 15 - 10 = 55 s); the next would have at 75 s.
    expect(overrunStarts).toEqual([0, 25_000, 50_000]);
    expect(Math.max(...overrunStarts)).toBeLessThanOrEqual((leaseSeconds - CLAIM_MARGIN_SECONDS / 2 - 10) * 1000);
    const stored = await deps.outbox.listForAddress(scope, 'ada@example.test', 10);
    const waiting = stored.filter((m) => m.status === 'pending');
    expect(waiting).toHaveLength(2);
    expect(waiting.every((m) => /took too long/.test(m.lastError ?? ''))).toBe(true);
  });
});

describe('a round told to stop (the service shuts down)', () => {
  it('starts no send once stopping: the sends in flight end, the rest of the claim is pending and due at once', async () => {
    const { deps, scope, enqueue } = await setup();
    for (let i = 0; i < 6; i += 1) await enqueue();
    let stopping = false;
    const sent: string[] = [];
    const mailer: Mailer = {
      send: async (message) => {
        sent.push(message.messageId);
        // The stop arrives while the second send is in flight; that send still ends.
        if (sent.length === 2) stopping = true;
        await new Promise((resolve) => setImmediate(resolve));
        return { messageId: message.messageId };
      },
    };
    const claimedAt = deps.clock.now();
    expect(await deliverOutbox({ ...deps, mailer }, { batchSize: 6, concurrency: 2 }, undefined, { stopping: () => stopping })).toEqual({ claimed: 6, sent: 2, retried: 0, dead: 0, released: 4 });
    expect(sent).toHaveLength(2);
    const stored = await deps.outbox.listForAddress(scope, 'ada@example.test', 10);
    expect(stored.filter((m) => m.status === 'sent')).toHaveLength(2);
    // Given back as they were before the claim: no try spent, no failure noted.
    const released = stored.filter((m) => m.status === 'pending');
    expect(released.map((m) => ({ at: m.nextAttemptAt, attempts: m.attempts, lastError: m.lastError, leaseUntil: m.leaseUntil }))).toEqual(
      Array(4).fill({ at: claimedAt, attempts: 0, lastError: null, leaseUntil: null }),
    );
    // Due at once: the next round (here, another instance's) claims and sends them without waiting.
    const next = new RecordingMailer();
    expect(await deliverOutbox({ ...deps, mailer: next }, { batchSize: 6, concurrency: 2 })).toEqual({ claimed: 4, sent: 4, retried: 0, dead: 0, released: 0 });
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
