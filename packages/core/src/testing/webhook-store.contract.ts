import type { TenantScope } from '../domain/environment';
import type { WebhookEndpoint, WebhookMessage } from '../domain/webhook';
import type { WebhookStore } from '../ports/webhook-store';
import { at, newId, seedScope, type StoragePorts } from './storage-fixture';

export type WebhookStoreFactory = () => Promise<{ ports: StoragePorts; webhooks: WebhookStore; close(): Promise<void> }>;

const T0 = at('2026-01-01T00:00:00.000Z');
const seconds = (n: number) => new Date(T0.getTime() + n * 1000);

function endpointFixture(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return {
    id: newId(),
    url: 'https://hooks.example.test/svc',
    eventTypes: ['user.created', 'user.banned'],
    enabled: true,
    disabledReason: null,
    sealedSecret: 'sealed-current',
    sealedPreviousSecret: null,
    previousSecretExpiresAt: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

function messageFixture(endpointId: string, overrides: Partial<WebhookMessage> = {}): WebhookMessage {
  return {
    id: newId(),
    endpointId,
    eventType: 'user.created',
    payload: '{"type":"user.created"}',
    status: 'pending',
    attempts: 0,
    nextAttemptAt: T0,
    leaseUntil: null,
    lastStatusCode: null,
    lastError: null,
    createdAt: T0,
    deliveredAt: null,
    ...overrides,
  };
}

/** Contract every WebhookStore passes: endpoints per tenant, the delivery queue, its log, redelivery, purge. */
export function webhookStoreContract(label: string, factory: WebhookStoreFactory): void {
  describe(`WebhookStore contract: ${label}`, () => {
    let subject: Awaited<ReturnType<WebhookStoreFactory>>;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(async () => {
      await subject?.close();
    });
    const store = () => subject.webhooks;

    async function seeded(): Promise<{ scope: TenantScope; endpoint: WebhookEndpoint }> {
      const scope = await seedScope(subject.ports);
      const endpoint = endpointFixture();
      await store().createEndpoint(scope, endpoint);
      return { scope, endpoint };
    }

    it('keeps endpoints per tenant and updates only the given fields', async () => {
      const { scope, endpoint } = await seeded();
      expect(await store().findEndpoint(scope, endpoint.id)).toEqual(endpoint);
      expect(await store().findEndpoint({ ...scope, environment: 'sandbox' }, endpoint.id)).toBeNull();
      expect(await store().listEndpoints(await seedScope(subject.ports))).toEqual([]);
      const updated = await store().updateEndpoint(scope, endpoint.id, { enabled: false, disabledReason: 'gone', previousSecretExpiresAt: seconds(9) }, seconds(1));
      expect(updated).toEqual({ ...endpoint, enabled: false, disabledReason: 'gone', previousSecretExpiresAt: seconds(9), updatedAt: seconds(1) });
      expect(await store().listEndpoints(scope)).toEqual([updated]);
      expect(await store().updateEndpoint({ ...scope, environment: 'sandbox' }, endpoint.id, { enabled: true }, seconds(2))).toBeNull();
    });

    it('claims due messages once while the lease runs, then again after it', async () => {
      const { scope, endpoint } = await seeded();
      const message = messageFixture(endpoint.id, { nextAttemptAt: seconds(10) });
      await store().enqueue(scope, [message]);
      expect((await store().claimDue(seconds(9), { limit: 100, leaseSeconds: 30 })).some((m) => m.id === message.id)).toBe(false);
      const [claimed] = (await store().claimDue(seconds(10), { limit: 100, leaseSeconds: 30 })).filter((m) => m.id === message.id);
      expect(claimed).toMatchObject({ status: 'sending', attempts: 1, scope, payload: message.payload, leaseUntil: seconds(40) });
      expect((await store().claimDue(seconds(20), { limit: 100, leaseSeconds: 30 })).some((m) => m.id === message.id)).toBe(false);
      const [again] = (await store().claimDue(seconds(40), { limit: 100, leaseSeconds: 30 })).filter((m) => m.id === message.id);
      expect(again.attempts).toBe(2);
    });

    it('concurrent claimers never get the same message', async () => {
      const { scope, endpoint } = await seeded();
      const messages = Array.from({ length: 12 }, () => messageFixture(endpoint.id, { nextAttemptAt: seconds(100) }));
      await store().enqueue(scope, messages);
      const ids = new Set(messages.map((m) => m.id));
      const rounds = await Promise.all(Array.from({ length: 4 }, () => store().claimDue(seconds(100), { limit: 5, leaseSeconds: 60 })));
      const mine = rounds
        .flat()
        .filter((m) => ids.has(m.id))
        .map((m) => m.id);
      expect(new Set(mine).size).toBe(mine.length);
    });

    it('logs every attempt and applies outcomes only to a message still sending', async () => {
      const { scope, endpoint } = await seeded();
      const message = messageFixture(endpoint.id, { nextAttemptAt: seconds(200) });
      await store().enqueue(scope, [message]);
      await store().claimDue(seconds(200), { limit: 100, leaseSeconds: 60 });
      await store().finishAttempt(
        scope,
        { messageId: message.id, attempt: 1, at: seconds(201), statusCode: 503, error: 'HTTP 503', durationMs: 12 },
        { status: 'pending', nextAttemptAt: seconds(206) },
      );
      expect(await store().findMessage(scope, message.id)).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: seconds(206), lastStatusCode: 503, lastError: 'HTTP 503' });
      // Not sending: the outcome is ignored, the attempt still logged.
      await store().finishAttempt(scope, { messageId: message.id, attempt: 1, at: seconds(202), statusCode: 200, error: null, durationMs: 3 }, { status: 'delivered' });
      expect((await store().findMessage(scope, message.id))!.status).toBe('pending');
      await store().claimDue(seconds(206), { limit: 100, leaseSeconds: 60 });
      await store().finishAttempt(scope, { messageId: message.id, attempt: 2, at: seconds(207), statusCode: 200, error: null, durationMs: 5 }, { status: 'delivered' });
      expect(await store().findMessage(scope, message.id)).toMatchObject({ status: 'delivered', deliveredAt: seconds(207), leaseUntil: null });
      const attempts = await store().listAttempts(scope, message.id);
      expect(attempts.map((a) => [a.attempt, a.statusCode])).toEqual([
        [1, 503],
        [1, 200],
        [2, 200],
      ]);
      expect(await store().listAttempts({ ...scope, environment: 'sandbox' }, message.id)).toEqual([]);
    });

    it('requeues a finished message under the same id with its schedule restarted, not one in flight', async () => {
      const { scope, endpoint } = await seeded();
      const message = messageFixture(endpoint.id, { nextAttemptAt: seconds(300) });
      await store().enqueue(scope, [message]);
      await store().claimDue(seconds(300), { limit: 100, leaseSeconds: 60 });
      expect(await store().requeue(scope, message.id, seconds(301))).toBe(false);
      await store().finishAttempt(scope, { messageId: message.id, attempt: 1, at: seconds(302), statusCode: null, error: 'refused', durationMs: 1 }, { status: 'dead' });
      expect(await store().requeue({ ...scope, environment: 'sandbox' }, message.id, seconds(303))).toBe(false);
      expect(await store().requeue(scope, message.id, seconds(303))).toBe(true);
      expect(await store().findMessage(scope, message.id)).toMatchObject({ id: message.id, status: 'pending', attempts: 0, nextAttemptAt: seconds(303) });
    });

    it('requeues the finished messages of a time range, of that endpoint and scope only', async () => {
      const { scope, endpoint } = await seeded();
      const other = endpointFixture();
      await store().createEndpoint(scope, other);
      const inRange = messageFixture(endpoint.id, { createdAt: seconds(600), nextAttemptAt: seconds(600) });
      const late = messageFixture(endpoint.id, { createdAt: seconds(700), nextAttemptAt: seconds(600) });
      const elsewhere = messageFixture(other.id, { createdAt: seconds(600), nextAttemptAt: seconds(600) });
      await store().enqueue(scope, [inRange, late, elsewhere]);
      await store().claimDue(seconds(600), { limit: 1000, leaseSeconds: 60 });
      for (const m of [inRange, late, elsewhere]) {
        await store().finishAttempt(scope, { messageId: m.id, attempt: 1, at: seconds(601), statusCode: 500, error: 'HTTP 500', durationMs: 1 }, { status: 'dead' });
      }
      const range = { from: seconds(600), to: seconds(700), limit: 100 };
      expect(await store().requeueRange({ ...scope, environment: 'sandbox' }, endpoint.id, range, seconds(800))).toBe(0);
      expect(await store().requeueRange(scope, endpoint.id, range, seconds(800))).toBe(1);
      expect(await store().findMessage(scope, inRange.id)).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: seconds(800) });
      expect((await store().findMessage(scope, late.id))!.status).toBe('dead');
      expect((await store().findMessage(scope, elsewhere.id))!.status).toBe('dead');
    });

    it('lists messages newest first, counts them and purges finished ones with their attempts; deleting an endpoint takes its messages', async () => {
      const { scope, endpoint } = await seeded();
      const old = messageFixture(endpoint.id, { createdAt: seconds(0), nextAttemptAt: seconds(400) });
      const young = messageFixture(endpoint.id, { createdAt: seconds(5), nextAttemptAt: seconds(9_999_999) });
      await store().enqueue(scope, [old, young]);
      expect((await store().listMessages(scope, { endpointId: endpoint.id, limit: 10 })).map((m) => m.id)).toEqual([young.id, old.id]);
      const stats = await store().stats(seconds(500));
      expect(stats.counts.pending).toBeGreaterThanOrEqual(2);
      expect(stats.oldestDueAt!.getTime()).toBeLessThanOrEqual(seconds(400).getTime());
      await store().claimDue(seconds(400), { limit: 1000, leaseSeconds: 60 });
      await store().finishAttempt(scope, { messageId: old.id, attempt: 1, at: seconds(401), statusCode: 204, error: null, durationMs: 1 }, { status: 'delivered' });
      let deleted = 0;
      for (let n = await store().deleteFinishedBefore(seconds(1), 50); n > 0; n = await store().deleteFinishedBefore(seconds(1), 50)) deleted += n;
      expect(deleted).toBeGreaterThanOrEqual(1);
      expect(await store().findMessage(scope, old.id)).toBeNull();
      expect(await store().findMessage(scope, young.id)).not.toBeNull();
      expect(await store().deleteEndpoint({ ...scope, environment: 'sandbox' }, endpoint.id)).toBe(false);
      expect(await store().deleteEndpoint(scope, endpoint.id)).toBe(true);
      expect(await store().findMessage(scope, young.id)).toBeNull();
      expect(await store().findEndpoint(scope, endpoint.id)).toBeNull();
    });

    it('gives back a claim unsent, still held under its lease: pending, due when asked, its attempt returned, nothing logged', async () => {
      const { scope, endpoint } = await seeded();
      const other = await seeded();
      const [tried, fresh, overtaken, finished, foreign] = [1, 2, 3, 4, 5].map(() => messageFixture(endpoint.id, { nextAttemptAt: seconds(1000) }));
      await store().enqueue(scope, [tried, overtaken]);
      const mine = async (at: number) =>
        (await store().claimDue(seconds(at), { limit: 1000, leaseSeconds: 60 })).filter((m) => [tried, fresh, overtaken, finished, foreign].some((x) => x.id === m.id));
      expect(await mine(1000)).toHaveLength(2);
      await store().finishAttempt(
        scope,
        { messageId: tried.id, attempt: 1, at: seconds(1001), statusCode: 503, error: 'HTTP 503', durationMs: 1 },
        { status: 'pending', nextAttemptAt: seconds(1060) },
      );
      // overtaken's lease (until 1060) ran out and another worker claimed it (until 1120), with the others.
      await store().enqueue(scope, [fresh, finished]);
      await store().enqueue(other.scope, [{ ...foreign, endpointId: other.endpoint.id }]);
      expect((await mine(1060)).map((m) => [m.id, m.attempts]).sort()).toEqual(
        [
          [tried.id, 2],
          [fresh.id, 1],
          [overtaken.id, 2],
          [finished.id, 1],
          [foreign.id, 1],
        ].sort(),
      );
      await store().finishAttempt(scope, { messageId: finished.id, attempt: 1, at: seconds(1061), statusCode: 204, error: null, durationMs: 1 }, { status: 'delivered' });
      const held = seconds(1120);
      await store().release(
        [
          { scope, id: tried.id, leaseUntil: held },
          { scope, id: fresh.id, leaseUntil: held },
          { scope, id: overtaken.id, leaseUntil: seconds(1060) },
          { scope, id: finished.id, leaseUntil: held },
          { scope, id: foreign.id, leaseUntil: held },
        ],
        seconds(1062),
      );
      await store().release([], seconds(1062));
      expect(await store().findMessage(scope, tried.id)).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: seconds(1062), leaseUntil: null, lastStatusCode: 503, lastError: 'HTTP 503' });
      expect(await store().findMessage(scope, fresh.id)).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: seconds(1062), leaseUntil: null, lastStatusCode: null, lastError: null });
      expect(await store().findMessage(scope, overtaken.id)).toMatchObject({ status: 'sending', attempts: 2, leaseUntil: held });
      expect(await store().findMessage(scope, finished.id)).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(await store().findMessage(other.scope, foreign.id)).toMatchObject({ status: 'sending', attempts: 1, leaseUntil: held });
      expect((await store().listAttempts(scope, fresh.id)).length).toBe(0);
      expect((await store().listAttempts(scope, tried.id)).map((a) => a.statusCode)).toEqual([503]);
      expect((await mine(1061)).map((m) => m.id)).toEqual([]);
      expect((await mine(1062)).map((m) => m.id).sort()).toEqual([tried.id, fresh.id].sort());
    });
  });
}
