import type { TenantScope } from '../domain/environment';
import { auditEntryOf, type AuditEntry, type SecurityEvent } from '../domain/security-event';
import type { AuditLog } from '../ports/audit-log';
import type { WebhookStore } from '../ports/webhook-store';
import { at, newId, seedScope, type StoragePorts } from './storage-fixture';

export type AuditLogFactory = () => Promise<{ ports: StoragePorts; auditLog: AuditLog; webhooks: WebhookStore; close(): Promise<void> }>;

const T0 = at('2026-01-01T00:00:00.000Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

function entry(event: SecurityEvent, when: Date, retentionDays = 30): AuditEntry {
  return auditEntryOf(event, { id: newId(), at: when, retentionDays });
}

/** Contract every AuditLog passes: round trip, per tenant, filters, stable paging, purge by expiry. */
export function auditLogContract(label: string, factory: AuditLogFactory): void {
  describe(`AuditLog contract: ${label}`, () => {
    let subject: Awaited<ReturnType<AuditLogFactory>>;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(async () => {
      await subject?.close();
    });
    const log = () => subject.auditLog;

    it('keeps every field of an entry exactly', async () => {
      const scope = await seedScope(subject.ports);
      const userId = newId();
      const written = entry(
        {
          type: 'user.sign_in_failed',
          userId,
          data: { method: 'password', reason: 'invalid_credentials' },
          context: { clientAddress: '203.0.113.9', userAgent: 'agent/1.0', requestId: 'req-1', actor: { type: 'api_key', apiKeyId: newId() } },
        },
        T0,
      );
      await log().append(scope, written);
      expect(await log().list(scope, { limit: 10 })).toEqual([written]);
    });

    it('answers only its own tenant, environment included', async () => {
      const scope = await seedScope(subject.ports);
      const sandbox: TenantScope = { ...scope, environment: 'sandbox' };
      await log().append(scope, entry({ type: 'signing_key.rotated', data: { kid: 'k1' } }, T0));
      expect(await log().list(sandbox, { limit: 10 })).toEqual([]);
      expect(await log().list(await seedScope(subject.ports), { limit: 10 })).toEqual([]);
      expect(await log().list(scope, { limit: 10 })).toHaveLength(1);
    });

    it('filters by type, user and time range, newest first', async () => {
      const scope = await seedScope(subject.ports);
      const [ada, bob] = [newId(), newId()];
      const written = [
        entry({ type: 'user.created', userId: ada, data: { method: 'password' } }, minutes(0)),
        entry({ type: 'user.signed_in', userId: ada, data: { sessionId: newId(), method: 'password' } }, minutes(1)),
        entry({ type: 'user.signed_in', userId: bob, data: { sessionId: newId(), method: 'passkey' } }, minutes(2)),
        entry({ type: 'user.banned', userId: bob, data: {} }, minutes(3)),
      ];
      for (const e of written) await log().append(scope, e);
      const ids = (entries: AuditEntry[]) => entries.map((e) => e.id);
      expect(ids(await log().list(scope, { limit: 10 }))).toEqual([written[3], written[2], written[1], written[0]].map((e) => e.id));
      expect(ids(await log().list(scope, { type: 'user.signed_in', limit: 10 }))).toEqual([written[2].id, written[1].id]);
      expect(ids(await log().list(scope, { userId: ada, limit: 10 }))).toEqual([written[1].id, written[0].id]);
      expect(ids(await log().list(scope, { from: minutes(1), to: minutes(3), limit: 10 }))).toEqual([written[2].id, written[1].id]);
      expect(await log().list(scope, { userId: 'not-a-uuid', limit: 10 })).toEqual([]);
    });

    it('pages without gaps or repeats, entries of the same instant included', async () => {
      const scope = await seedScope(subject.ports);
      const written: AuditEntry[] = [];
      for (let i = 0; i < 7; i++) written.push(entry({ type: 'signing_key.rotated', data: { kid: `k${i}` } }, minutes(i % 3)));
      for (const e of written) await log().append(scope, e);
      const seen: string[] = [];
      let before: { at: Date; id: string } | undefined;
      for (;;) {
        const page = await log().list(scope, { limit: 3, before });
        seen.push(...page.map((e) => e.id));
        if (page.length < 3) break;
        const last = page[page.length - 1];
        before = { at: last.at, id: last.id };
      }
      expect(seen).toHaveLength(7);
      expect(new Set(seen)).toEqual(new Set(written.map((e) => e.id)));
    });

    it('counts entries per UTC day and type, in its tenant and range only', async () => {
      const scope = await seedScope(subject.ports);
      const day = (iso: string) => at(iso);
      const signedIn = (when: Date) => entry({ type: 'user.signed_in', userId: newId(), data: { sessionId: newId(), method: 'password' } }, when);
      const written = [
        signedIn(day('2026-01-01T00:00:00.000Z')),
        signedIn(day('2026-01-01T23:59:59.999Z')),
        signedIn(day('2026-01-02T00:00:00.000Z')),
        entry({ type: 'user.created', userId: newId(), data: { method: 'password' } }, day('2026-01-02T12:00:00.000Z')),
        entry({ type: 'user.banned', userId: newId(), data: {} }, day('2026-01-02T12:00:00.000Z')),
        // Outside [from, to): the day before and the instant `to` itself.
        signedIn(day('2025-12-31T23:59:59.999Z')),
        signedIn(day('2026-01-03T00:00:00.000Z')),
      ];
      for (const e of written) await log().append(scope, e);
      await log().append({ ...scope, environment: 'sandbox' }, signedIn(day('2026-01-01T10:00:00.000Z')));
      await log().append(await seedScope(subject.ports), signedIn(day('2026-01-01T10:00:00.000Z')));
      const range = { from: day('2026-01-01T00:00:00.000Z'), to: day('2026-01-03T00:00:00.000Z') };
      const counts = await log().countPerDay(scope, { types: ['user.signed_in', 'user.created', 'user.sign_in_failed'], ...range });
      const sorted = [...counts].sort((a, b) => `${a.day}${a.type}`.localeCompare(`${b.day}${b.type}`));
      expect(sorted).toEqual([
        { day: '2026-01-01', type: 'user.signed_in', count: 2 },
        { day: '2026-01-02', type: 'user.created', count: 1 },
        { day: '2026-01-02', type: 'user.signed_in', count: 1 },
      ]);
      expect(await log().countPerDay(scope, { types: ['user.sign_in_failed'], ...range })).toEqual([]);
      expect(await log().countPerDay({ ...scope, projectId: 'not-a-uuid' }, { types: ['user.signed_in'], ...range })).toEqual([]);
    });

    it('refuses a second entry with the same id (append-only)', async () => {
      const scope = await seedScope(subject.ports);
      const written = entry({ type: 'user.unbanned', userId: newId(), data: {} }, T0);
      await log().append(scope, written);
      await expect(log().append(scope, { ...written, type: 'user.banned' })).rejects.toThrow();
      expect((await log().list(scope, { limit: 10 }))[0].type).toBe('user.unbanned');
    });

    it('queues webhook deliveries with the entry, both or neither', async () => {
      const scope = await seedScope(subject.ports);
      const endpointId = newId();
      await subject.webhooks.createEndpoint(scope, {
        id: endpointId,
        url: 'https://hooks.example.test/',
        eventTypes: [],
        enabled: true,
        disabledReason: null,
        sealedSecret: 'sealed',
        sealedPreviousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: T0,
        updatedAt: T0,
      });
      const delivery = (endpoint: string) => ({
        id: newId(),
        endpointId: endpoint,
        eventType: 'user.banned' as const,
        payload: '{}',
        status: 'pending' as const,
        attempts: 0,
        nextAttemptAt: T0,
        leaseUntil: null,
        lastStatusCode: null,
        lastError: null,
        createdAt: T0,
        deliveredAt: null,
      });
      const kept = entry({ type: 'user.banned', userId: newId(), data: {} }, T0);
      const queued = delivery(endpointId);
      await log().append(scope, kept, { deliveries: [queued] });
      expect((await subject.webhooks.findMessage(scope, queued.id))?.status).toBe('pending');
      const refused = entry({ type: 'user.banned', userId: newId(), data: {} }, minutes(1));
      await expect(log().append(scope, refused, { deliveries: [delivery(newId())] })).rejects.toThrow();
      expect((await log().list(scope, { limit: 10 })).map((e) => e.id)).toEqual([kept.id]);
    });

    it('purges entries past their expiry only, in bounded batches', async () => {
      const scope = await seedScope(subject.ports);
      const keep = entry({ type: 'user.banned', userId: newId(), data: {} }, minutes(0), 365 * 20);
      const gone = [0, 1, 2].map(() => entry({ type: 'user.unbanned', userId: newId(), data: {} }, minutes(0), 1));
      for (const e of [keep, ...gone]) await log().append(scope, e);
      const after = new Date(gone[0].expiresAt.getTime() + 1);
      let deleted = 0;
      for (let n = await log().deleteExpired(after, 2); n > 0; n = await log().deleteExpired(after, 2)) deleted += n;
      expect(deleted).toBeGreaterThanOrEqual(3);
      expect((await log().list(scope, { limit: 10 })).map((e) => e.id)).toEqual([keep.id]);
    });
  });
}
