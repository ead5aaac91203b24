import { createAuthService } from '../src/create-auth-service';
import { nextWebhookAttempt, WEBHOOK_RETRY_SCHEDULE_SECONDS } from '../src/domain/webhook';
import { createInMemoryDeps } from '../src/testing/in-memory-deps';
import { RecordingWebhookTransport } from '../src/testing/recording-webhook-transport';
import { DEFAULT_WEBHOOK_POLICY, deliverWebhooks } from '../src/use-cases/webhooks/deliver-webhooks';
import type { WebhookResponse, WebhookTransport } from '../src/ports/webhook-transport';
import { PASSWORD } from './helpers';

// The delivery rules on a fixed clock: the retry schedule to the last step, Retry-After, 410,
// endpoints turned off, the secret overlap of a rotation, and the webhook-id across it all.

async function hooked() {
  const transport = new RecordingWebhookTransport();
  const deps = createInMemoryDeps({ webhookTransport: transport });
  const service = createAuthService(deps);
  const key = await service.resolveApiKey((await service.admin.createProject({ name: 'Hooks' })).apiKeys.production);
  const { endpoint, secret } = await service.admin.createWebhookEndpoint(key.scope, { url: 'https://hooks.example.test/in', eventTypes: ['user.created'] });
  return { deps, service, key, endpoint, secret, transport };
}

describe('webhook delivery', () => {
  it('follows the schedule (jitter within ±10%) to the last step, then the message is dead; one webhook-id throughout', async () => {
    const { deps, service, key, endpoint, transport } = await hooked();
    transport.answer = () => ({ statusCode: 500, retryAfterSeconds: null, error: 'HTTP 500' });
    await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
    for (let attempt = 1; attempt <= WEBHOOK_RETRY_SCHEDULE_SECONDS.length; attempt++) {
      const round = await deliverWebhooks(deps);
      expect(round.claimed).toBe(1);
      const [message] = await service.admin.listWebhookMessages(key.scope, endpoint.id);
      if (attempt === WEBHOOK_RETRY_SCHEDULE_SECONDS.length) {
        expect(message.status).toBe('dead');
        break;
      }
      const wait = (message.nextAttemptAt.getTime() - deps.clock.now().getTime()) / 1000;
      const step = WEBHOOK_RETRY_SCHEDULE_SECONDS[attempt];
      expect(wait).toBeGreaterThanOrEqual(step * 0.9);
      expect(wait).toBeLessThanOrEqual(step * 1.1);
      // Not due a moment before its time.
      deps.clock.advance(Math.max(0, wait - 1));
      if (wait >= 1) expect((await deliverWebhooks(deps)).claimed).toBe(0);
      deps.clock.advance(1);
    }
    expect(transport.sent).toHaveLength(8);
    expect(new Set(transport.sent.map((d) => d.webhookId)).size).toBe(1);
  });

  it('honours a longer Retry-After, ignores a shorter one, and caps it', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(nextWebhookAttempt(now, 1, 0.5, 60)!.getTime() - now.getTime()).toBe(60_000);
    expect(nextWebhookAttempt(now, 1, 0.5, 1)!.getTime() - now.getTime()).toBe(5_000);
    expect(nextWebhookAttempt(now, 1, 0.5, 10 ** 9)!.getTime() - now.getTime()).toBe(36_000_000);
    expect(nextWebhookAttempt(now, 8, 0.5, 60)).toBeNull();
  });

  it('a 410 kills the message and turns the endpoint off; later events are not queued for it', async () => {
    const { deps, service, key, endpoint, transport } = await hooked();
    transport.answer = () => ({ statusCode: 410, retryAfterSeconds: null, error: 'HTTP 410' });
    await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
    expect(await deliverWebhooks(deps)).toMatchObject({ claimed: 1, dead: 1 });
    expect(await service.admin.getWebhookEndpoint(key.scope, endpoint.id)).toMatchObject({ enabled: false, disabledReason: 'gone' });
    await service.signUp(key, { email: 'bob@example.test', password: PASSWORD });
    expect(await service.admin.listWebhookMessages(key.scope, endpoint.id)).toHaveLength(1);
  });

  it('signs with both secrets during a rotation overlap, with the new one alone after it', async () => {
    const { deps, service, key, endpoint, secret, transport } = await hooked();
    const { secret: rotated } = await service.admin.rotateWebhookSecret(key.scope, endpoint.id);
    await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
    await deliverWebhooks(deps);
    expect(transport.sent[0].secrets).toEqual([rotated, secret]);
    deps.clock.advance(24 * 3600);
    await service.signUp(key, { email: 'bob@example.test', password: PASSWORD });
    await deliverWebhooks(deps);
    expect(transport.sent[1].secrets).toEqual([rotated]);
  });

  it('a message whose endpoint was turned off is dead at its next try, and redelivery restarts it', async () => {
    const { deps, service, key, endpoint, transport } = await hooked();
    await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
    await service.admin.updateWebhookEndpoint(key.scope, endpoint.id, { enabled: false });
    expect(await deliverWebhooks(deps)).toMatchObject({ dead: 1 });
    expect(transport.sent).toEqual([]);
    await service.admin.updateWebhookEndpoint(key.scope, endpoint.id, { enabled: true });
    const [message] = await service.admin.listWebhookMessages(key.scope, endpoint.id);
    await service.admin.redeliverWebhook(key.scope, message.id);
    expect(await deliverWebhooks(deps)).toMatchObject({ delivered: 1 });
    const { attempts } = await service.admin.getWebhookMessage(key.scope, message.id);
    expect(attempts.map((a) => a.error)).toEqual(['endpoint disabled', null]);
    // And by time range: the messages created in it, again under their own ids.
    const range = { from: new Date(deps.clock.now().getTime() - 60_000), to: new Date(deps.clock.now().getTime() + 1) };
    expect(await service.admin.redeliverWebhookRange(key.scope, endpoint.id, range)).toEqual({ requeued: 1 });
    await deliverWebhooks(deps);
    expect(transport.sent.map((d) => d.webhookId)).toEqual([transport.sent[0].webhookId, transport.sent[0].webhookId]);
    await expect(service.admin.redeliverWebhookRange(key.scope, endpoint.id, { from: range.to, to: range.from })).rejects.toMatchObject({ code: 'validation_error' });
  });
});

describe('a webhook round told to stop (the service shuts down)', () => {
  it('starts no delivery once stopping: the rest of its claim goes back unsent, due at once, its attempts returned, no try logged', async () => {
    const { deps, service, key, endpoint } = await hooked();
    for (const email of ['ada@example.test', 'bob@example.test', 'cy@example.test']) await service.signUp(key, { email, password: PASSWORD });
    let stopping = false;
    const sent: string[] = [];
    const transport: WebhookTransport = {
      deliver: async (delivery) => {
        // The stop arrives while the first delivery is in flight; that one still ends.
        sent.push(delivery.webhookId);
        stopping = true;
        return { statusCode: 204, retryAfterSeconds: null, error: null };
      },
    };
    const claimedAt = deps.clock.now();
    const round = await deliverWebhooks({ ...deps, webhookTransport: transport }, DEFAULT_WEBHOOK_POLICY, { stopping: () => stopping });
    expect(round).toMatchObject({ claimed: 3, delivered: 1, retried: 0, dead: 0, released: 2 });
    expect(sent).toHaveLength(1);
    const messages = await service.admin.listWebhookMessages(key.scope, endpoint.id);
    const back = messages.filter((m) => m.status === 'pending');
    expect(back.map((m) => ({ attempts: m.attempts, at: m.nextAttemptAt, leaseUntil: m.leaseUntil, lastError: m.lastError }))).toEqual(
      Array(2).fill({ attempts: 0, at: claimedAt, leaseUntil: null, lastError: null }),
    );
    for (const m of back) expect(await deps.webhooks.listAttempts(key.scope, m.id)).toEqual([]);
    // Due at once: the next round (another instance's, or this one's next start) delivers them.
    expect(await deliverWebhooks(deps)).toMatchObject({ claimed: 2, delivered: 2, released: 0 });
  });

  it("hands each delivery the round's signal: one cut when it fires is a failed try, logged and retried on the schedule", async () => {
    const { deps, service, key, endpoint } = await hooked();
    await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
    const cut = new AbortController();
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const transport: WebhookTransport = {
      deliver: (_delivery, signal) =>
        new Promise<WebhookResponse>((resolve) => {
          started();
          signal?.addEventListener('abort', () => resolve({ statusCode: null, retryAfterSeconds: null, error: 'aborted' }));
        }),
    };
    const round = deliverWebhooks({ ...deps, webhookTransport: transport }, DEFAULT_WEBHOOK_POLICY, { stopping: () => cut.signal.aborted, signal: cut.signal });
    await inFlight;
    cut.abort();
    expect(await round).toMatchObject({ claimed: 1, delivered: 0, retried: 1, released: 0 });
    const [message] = await service.admin.listWebhookMessages(key.scope, endpoint.id);
    expect(message).toMatchObject({ status: 'pending', attempts: 1, lastError: 'aborted' });
    expect((message.nextAttemptAt.getTime() - deps.clock.now().getTime()) / 1000).toBeGreaterThanOrEqual(WEBHOOK_RETRY_SCHEDULE_SECONDS[1] * 0.9);
    expect((await deps.webhooks.listAttempts(key.scope, message.id)).map((a) => a.error)).toEqual(['aborted']);
  });
});
