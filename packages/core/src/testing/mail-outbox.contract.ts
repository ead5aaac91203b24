import type { TenantScope } from '../domain/environment';
import type { NewOutboxMail } from '../domain/mail';
import type { NewOneTimeToken } from '../domain/one-time-token';
import { sha256Hex } from '../domain/secrets';
import type { MailOutbox } from '../ports/mail-outbox';
import type { OneTimeTokenStore } from '../ports/one-time-token-store';
import { at, newId, seedScope, seedUser, type StoragePorts } from './storage-fixture';

/** The outbox and the token store must share one database: enqueue writes into both. */
export type MailOutboxFactory = () => Promise<{
  ports: StoragePorts;
  outbox: MailOutbox;
  oneTimeTokens: OneTimeTokenStore;
  close(): Promise<void>;
}>;

const T0 = at('2026-01-01T00:00:00.000Z');
const plus = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);
const FAR = at('2100-01-01T00:00:00.000Z');
const LEASE = { limit: 100, leaseSeconds: 60 };

/**
 * Contract every MailOutbox passes: claims never hand one mail to two claimers, an expired lease
 * re-delivers, token and mail are stored together or not at all, tenants stay apart.
 */
export function mailOutboxContract(label: string, factory: MailOutboxFactory): void {
  describe(`MailOutbox contract: ${label}`, () => {
    let subject: Awaited<ReturnType<MailOutboxFactory>>;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(async () => {
      await subject?.close();
    });
    const outbox = () => subject.outbox;

    // claimDue is global (the worker serves every tenant), so each case starts from an outbox
    // with nothing claimable: whatever earlier cases left is claimed and marked sent.
    beforeEach(async () => {
      for (const mail of await outbox().claimDue(FAR, { limit: 10_000, leaseSeconds: 1 })) {
        await outbox().markSent([{ scope: mail, id: mail.id, messageId: 'drained', sentAt: FAR, keepPayload: false }]);
      }
    });

    const mail = (overrides: Partial<NewOutboxMail> = {}): NewOutboxMail => ({
      id: newId(),
      to: `${newId()}@example.test`,
      template: 'magic_link',
      sealedPayload: `sealed-${newId()}`,
      createdAt: T0,
      expiresAt: plus(T0, 900),
      ...overrides,
    });
    const token = (userId: string, overrides: Partial<NewOneTimeToken> = {}): NewOneTimeToken => ({
      tokenHash: sha256Hex(newId()),
      purpose: 'magic_link',
      userId,
      data: {},
      createdAt: T0,
      expiresAt: plus(T0, 900),
      ...overrides,
    });
    const ids = (mails: { id: string }[]) => mails.map((m) => m.id);

    it('stores a pending mail, due at once, and claims it once under a lease', async () => {
      const scope = await seedScope(subject.ports);
      const m = mail();
      await outbox().enqueue(scope, m);
      const [claimed, ...rest] = await outbox().claimDue(plus(T0, 1), LEASE);
      expect(rest).toEqual([]);
      expect(claimed).toEqual({
        ...m,
        ...scope,
        status: 'sending',
        attempts: 1,
        nextAttemptAt: T0,
        leaseUntil: plus(T0, 61),
        lastError: null,
        messageId: null,
        sentAt: null,
      });
      expect(await outbox().claimDue(plus(T0, 60), LEASE)).toEqual([]);
    });

    it('never hands one mail to two concurrent claimers', async () => {
      const scope = await seedScope(subject.ports);
      const enqueued = Array.from({ length: 24 }, () => mail());
      for (const m of enqueued) await outbox().enqueue(scope, m);
      const batches = await Promise.all(Array.from({ length: 6 }, () => outbox().claimDue(plus(T0, 1), { limit: 5, leaseSeconds: 60 })));
      const claimed = batches.flatMap(ids);
      expect(new Set(claimed).size).toBe(claimed.length);
      const rest = await outbox().claimDue(plus(T0, 1), LEASE);
      expect([...claimed, ...ids(rest)].sort()).toEqual(ids(enqueued).sort());
    });

    it('re-delivers a mail whose lease expired (its worker crashed)', async () => {
      const scope = await seedScope(subject.ports);
      const m = mail();
      await outbox().enqueue(scope, m);
      await outbox().claimDue(T0, LEASE);
      expect(await outbox().claimDue(plus(T0, 59), LEASE)).toEqual([]);
      const [again] = await outbox().claimDue(plus(T0, 60), LEASE);
      expect(again).toMatchObject({ id: m.id, status: 'sending', attempts: 2, leaseUntil: plus(T0, 120) });
    });

    it('claims the oldest due first and respects the limit', async () => {
      const scope = await seedScope(subject.ports);
      const late = mail({ createdAt: plus(T0, 20) });
      const early = mail({ createdAt: plus(T0, 10) });
      await outbox().enqueue(scope, late);
      await outbox().enqueue(scope, early);
      expect(ids(await outbox().claimDue(plus(T0, 15), LEASE))).toEqual([early.id]);
      expect(ids(await outbox().claimDue(plus(T0, 30), { limit: 1, leaseSeconds: 60 }))).toEqual([late.id]);
    });

    it('takes expired claims and due pending mails together, oldest due first, within the limit', async () => {
      const scope = await seedScope(subject.ports);
      const crashed = mail();
      await outbox().enqueue(scope, crashed);
      await outbox().claimDue(T0, LEASE);
      const later = mail({ createdAt: plus(T0, 10) });
      const sooner = mail({ createdAt: plus(T0, 5) });
      await outbox().enqueue(scope, later);
      await outbox().enqueue(scope, sooner);
      // At T0 + 60 the first claim's lease has run out: it is due (since T0) with both pending mails.
      expect(ids(await outbox().claimDue(plus(T0, 60), { limit: 2, leaseSeconds: 60 }))).toEqual([crashed.id, sooner.id]);
      expect(ids(await outbox().claimDue(plus(T0, 60), LEASE))).toEqual([later.id]);
    });

    it('retries a failed mail when it is due again, and keeps the error', async () => {
      const scope = await seedScope(subject.ports);
      const m = mail();
      await outbox().enqueue(scope, m);
      await outbox().claimDue(T0, LEASE);
      await outbox().markFailed(scope, m.id, { error: '421 try later', nextAttemptAt: plus(T0, 30), keepPayload: false });
      expect(await outbox().claimDue(plus(T0, 29), LEASE)).toEqual([]);
      const [retry] = await outbox().claimDue(plus(T0, 30), LEASE);
      expect(retry).toMatchObject({ id: m.id, attempts: 2, lastError: '421 try later', sealedPayload: m.sealedPayload });
    });

    it('dead-letters: never claimed again, listed per project, payload wiped unless kept', async () => {
      const scope = await seedScope(subject.ports);
      const sandbox = { ...scope, environment: 'sandbox' as const };
      const [a, b] = [mail({ createdAt: plus(T0, 1) }), mail({ createdAt: plus(T0, 2) })];
      await outbox().enqueue(scope, a);
      await outbox().enqueue(sandbox, b);
      await outbox().claimDue(plus(T0, 5), LEASE);
      await outbox().markFailed(scope, a.id, { error: '550 no such user', nextAttemptAt: null, keepPayload: false });
      await outbox().markFailed(sandbox, b.id, { error: '550 no such user', nextAttemptAt: null, keepPayload: true });
      expect(await outbox().claimDue(FAR, LEASE)).toEqual([]);
      const dead = await outbox().listDead({ projectId: scope.projectId, limit: 10 });
      expect(ids(dead)).toEqual([b.id, a.id]);
      expect(dead.map((m) => [m.status, m.sealedPayload, m.lastError])).toEqual([
        ['dead', b.sealedPayload, '550 no such user'],
        ['dead', null, '550 no such user'],
      ]);
      expect(ids(await outbox().listDead({ projectId: scope.projectId, environment: 'production', limit: 10 }))).toEqual([a.id]);
    });

    it('marks sent in one call, each with its own Message-ID and time, wiping the payload unless it is kept, and counts by status', async () => {
      const scope = await seedScope(subject.ports);
      const sandbox = { ...scope, environment: 'sandbox' as const };
      const before = await outbox().stats();
      const [wiped, kept, elsewhere] = [mail(), mail(), mail()];
      for (const m of [wiped, kept]) await outbox().enqueue(scope, m);
      await outbox().enqueue(sandbox, elsewhere);
      expect((await outbox().stats()).pending).toBe(before.pending + 3);
      await outbox().claimDue(T0, LEASE);
      expect((await outbox().stats()).sending).toBe(before.sending + 3);
      await outbox().markSent([]);
      await outbox().markSent([
        { scope, id: wiped.id, messageId: '<a@svc>', sentAt: plus(T0, 2), keepPayload: false },
        { scope, id: kept.id, messageId: '<b@svc>', sentAt: plus(T0, 3), keepPayload: true },
        { scope: sandbox, id: elsewhere.id, messageId: '<c@svc>', sentAt: plus(T0, 4), keepPayload: true },
      ]);
      expect(await outbox().listForAddress(scope, wiped.to, 5)).toMatchObject([{ status: 'sent', sealedPayload: null, messageId: '<a@svc>', sentAt: plus(T0, 2), leaseUntil: null }]);
      expect(await outbox().listForAddress(scope, kept.to, 5)).toMatchObject([{ status: 'sent', sealedPayload: kept.sealedPayload, messageId: '<b@svc>', sentAt: plus(T0, 3) }]);
      expect(await outbox().listForAddress(sandbox, elsewhere.to, 5)).toMatchObject([{ status: 'sent', sealedPayload: elsewhere.sealedPayload, messageId: '<c@svc>', sentAt: plus(T0, 4) }]);
      expect(await outbox().claimDue(FAR, LEASE)).toEqual([]);
      const after = await outbox().stats();
      expect([after.sent - before.sent, after.sending - before.sending, after.dead - before.dead]).toEqual([3, 0, 0]);
    });

    it('writes the token with the mail, superseding older tokens, or neither', async () => {
      const scope = await seedScope(subject.ports);
      const user = await seedUser(subject.ports, scope);
      const old = token(user.id);
      await subject.oneTimeTokens.issue(scope, old);
      const fresh = token(user.id, { createdAt: plus(T0, 1) });
      const m = mail({ to: user.email });
      await outbox().enqueue(scope, m, { token: { token: fresh, supersede: true } });
      expect(await subject.oneTimeTokens.consume(scope, 'magic_link', old.tokenHash, plus(T0, 2))).toBeNull();
      expect(await subject.oneTimeTokens.find(scope, 'magic_link', fresh.tokenHash)).toMatchObject({ consumedAt: null });

      // A token that cannot be stored (its hash exists) takes the mail down with it.
      const orphan = mail({ to: user.email });
      await expect(outbox().enqueue(scope, orphan, { token: { token: { ...fresh, createdAt: plus(T0, 3) }, supersede: true } })).rejects.toThrow();
      expect(ids(await outbox().listForAddress(scope, user.email, 10))).toEqual([m.id]);
      expect(ids(await outbox().claimDue(plus(T0, 5), LEASE))).toEqual([m.id]);
      // ... and its supersede step was rolled back with it.
      expect(await subject.oneTimeTokens.consume(scope, 'magic_link', fresh.tokenHash, plus(T0, 5))).not.toBeNull();
    });

    it('stores neither token nor supersede when the mail cannot be stored, and supersedes only when asked', async () => {
      const scope = await seedScope(subject.ports);
      const user = await seedUser(subject.ports, scope);
      const open = token(user.id);
      await subject.oneTimeTokens.issue(scope, open);
      const m = mail({ to: user.email });
      await outbox().enqueue(scope, m);
      // The mail's id exists: the token beside it is not kept, and the open token stays open.
      const dropped = token(user.id, { createdAt: plus(T0, 1) });
      await expect(outbox().enqueue(scope, { ...mail({ to: user.email }), id: m.id }, { token: { token: dropped, supersede: true } })).rejects.toThrow();
      expect(await subject.oneTimeTokens.find(scope, 'magic_link', dropped.tokenHash)).toBeNull();
      expect(await subject.oneTimeTokens.find(scope, 'magic_link', open.tokenHash)).toMatchObject({ consumedAt: null });
      // Without supersede the older token stays open beside the new one.
      const beside = token(user.id, { createdAt: plus(T0, 2) });
      await outbox().enqueue(scope, mail({ to: user.email }), { token: { token: beside, supersede: false } });
      expect(await subject.oneTimeTokens.find(scope, 'magic_link', open.tokenHash)).toMatchObject({ consumedAt: null });
      expect(await subject.oneTimeTokens.find(scope, 'magic_link', beside.tokenHash)).toMatchObject({ consumedAt: null, userId: user.id });
    });

    it('keeps tenants apart', async () => {
      const scope = await seedScope(subject.ports);
      const sandbox = { ...scope, environment: 'sandbox' as const };
      const other = await seedScope(subject.ports);
      const m = mail();
      await outbox().enqueue(scope, m);
      await outbox().claimDue(plus(T0, 1), LEASE);
      for (const foreign of [sandbox, other] as TenantScope[]) {
        expect(await outbox().listForAddress(foreign, m.to, 10)).toEqual([]);
        await outbox().markFailed(foreign, m.id, { error: 'x', nextAttemptAt: null, keepPayload: false });
        await outbox().markSent([{ scope: foreign, id: m.id, messageId: 'x', sentAt: T0, keepPayload: false }]);
      }
      // A mark out of its scope is skipped while the others of the same call are recorded.
      const theirs = mail();
      await outbox().enqueue(other, theirs);
      await outbox().claimDue(plus(T0, 2), LEASE);
      await outbox().markSent([
        { scope: other, id: m.id, messageId: 'x', sentAt: T0, keepPayload: false },
        { scope: other, id: theirs.id, messageId: '<t@svc>', sentAt: T0, keepPayload: false },
      ]);
      expect(await outbox().listForAddress(other, theirs.to, 10)).toMatchObject([{ id: theirs.id, status: 'sent', messageId: '<t@svc>' }]);
      expect(await outbox().listDead({ projectId: other.projectId, limit: 10 })).toEqual([]);
      expect(await outbox().listForAddress(scope, m.to, 10)).toMatchObject([{ id: m.id, status: 'sending', sealedPayload: m.sealedPayload }]);
    });

    it('lets a late failure report not undo a sent mark (two workers after a lease ran out)', async () => {
      const scope = await seedScope(subject.ports);
      const m = mail();
      await outbox().enqueue(scope, m);
      await outbox().claimDue(T0, LEASE);
      await outbox().markSent([{ scope, id: m.id, messageId: '<m@svc>', sentAt: plus(T0, 1), keepPayload: false }]);
      await outbox().markFailed(scope, m.id, { error: 'timeout', nextAttemptAt: plus(T0, 30), keepPayload: false });
      expect(await outbox().listForAddress(scope, m.to, 1)).toMatchObject([{ status: 'sent', lastError: null }]);
      expect(await outbox().claimDue(FAR, LEASE)).toEqual([]);
    });

    it('gives a claim back unsent: pending, due when asked, its attempt returned, no failure recorded', async () => {
      const scope = await seedScope(subject.ports);
      const [fresh, tried] = [mail(), mail()];
      for (const m of [fresh, tried]) await outbox().enqueue(scope, m);
      await outbox().claimDue(T0, LEASE);
      await outbox().markFailed(scope, tried.id, { error: '421 try later', nextAttemptAt: plus(T0, 1), keepPayload: false });
      const claims = await outbox().claimDue(plus(T0, 1), LEASE);
      expect(claims.map((m) => [m.id, m.attempts])).toEqual([[tried.id, 2]]);
      // fresh was claimed at T0 (lease until T0 + 60), tried again at T0 + 1 (until T0 + 61).
      await outbox().release(
        [
          { scope, id: fresh.id, leaseUntil: plus(T0, 60) },
          { scope, id: tried.id, leaseUntil: plus(T0, 61) },
        ],
        plus(T0, 5),
      );
      expect(await outbox().listForAddress(scope, fresh.to, 1)).toEqual([
        expect.objectContaining({ status: 'pending', attempts: 0, nextAttemptAt: plus(T0, 5), leaseUntil: null, lastError: null, sealedPayload: fresh.sealedPayload }),
      ]);
      // An earlier failure's note stays: the release itself is not one.
      expect(await outbox().listForAddress(scope, tried.to, 1)).toEqual([expect.objectContaining({ status: 'pending', attempts: 1, nextAttemptAt: plus(T0, 5), lastError: '421 try later' })]);
      expect(await outbox().claimDue(plus(T0, 4), LEASE)).toEqual([]);
      const again = await outbox().claimDue(plus(T0, 5), LEASE);
      expect(again.map((m) => [m.id, m.attempts]).sort()).toEqual(
        [
          [fresh.id, 1],
          [tried.id, 2],
        ].sort(),
      );
      await outbox().release([], plus(T0, 6));
    });

    it('gives back only a claim still held under its lease: not one taken over, marked sent or finished, nor of another tenant', async () => {
      const scope = await seedScope(subject.ports);
      const other = await seedScope(subject.ports);
      const [overtaken, sent, dead, foreign, held] = [mail(), mail(), mail(), mail(), mail()];
      await outbox().enqueue(scope, overtaken);
      await outbox().claimDue(T0, LEASE);
      // Its lease (until T0 + 60) ran out and another worker claimed it (until T0 + 120).
      for (const m of [sent, dead, foreign, held]) await outbox().enqueue(scope, m);
      expect(await outbox().claimDue(plus(T0, 60), LEASE)).toHaveLength(5);
      await outbox().markSent([{ scope, id: sent.id, messageId: '<s@svc>', sentAt: plus(T0, 61), keepPayload: false }]);
      await outbox().markFailed(scope, dead.id, { error: '550 no such user', nextAttemptAt: null, keepPayload: false });
      await outbox().release(
        [
          { scope, id: overtaken.id, leaseUntil: plus(T0, 60) },
          { scope, id: sent.id, leaseUntil: plus(T0, 120) },
          { scope, id: dead.id, leaseUntil: plus(T0, 120) },
          { scope: other, id: foreign.id, leaseUntil: plus(T0, 120) },
          { scope: { ...scope, environment: 'sandbox' }, id: foreign.id, leaseUntil: plus(T0, 120) },
          { scope, id: held.id, leaseUntil: plus(T0, 120) },
        ],
        plus(T0, 62),
      );
      const state = async (m: NewOutboxMail) => (await outbox().listForAddress(scope, m.to, 1)).map((x) => [x.status, x.attempts, x.leaseUntil]);
      expect(await state(overtaken)).toEqual([['sending', 2, plus(T0, 120)]]);
      expect(await state(sent)).toEqual([['sent', 1, null]]);
      expect(await state(dead)).toEqual([['dead', 1, null]]);
      expect(await state(foreign)).toEqual([['sending', 1, plus(T0, 120)]]);
      expect(await state(held)).toEqual([['pending', 0, null]]);
      expect(ids(await outbox().claimDue(plus(T0, 62), LEASE))).toEqual([held.id]);
    });

    it('lists the latest mails to an address, newest first, up to the limit', async () => {
      const scope = await seedScope(subject.ports);
      const to = `${newId()}@example.test`;
      const sent = [1, 2, 3].map((s) => mail({ to, createdAt: plus(T0, s), template: s === 2 ? 'password_reset' : 'magic_link' }));
      for (const m of sent) await outbox().enqueue(scope, m);
      const latest = await outbox().listForAddress(scope, to, 2);
      expect(ids(latest)).toEqual([sent[2].id, sent[1].id]);
      expect(latest[1].template).toBe('password_reset');
      expect(await outbox().listForAddress(scope, `other-${to}`, 5)).toEqual([]);
    });

    // Housekeeping is global: its mails are from 2001, long before every other case's.
    it('deletes sent and dead mails created before the cutoff, of every tenant, up to the limit; never pending or sending ones', async () => {
      const scope = await seedScope(subject.ports);
      const other = { ...(await seedScope(subject.ports)), environment: 'sandbox' as const };
      const old = at('2001-01-01T00:00:00.000Z');
      const cutoff = at('2001-01-08T00:00:00.000Z');
      const [sentOld, sentRecent, sendingOld, pendingOld] = [old, cutoff, old, old].map((createdAt) => mail({ createdAt }));
      const deadOld = mail({ createdAt: old });
      await outbox().enqueue(scope, sentOld);
      await outbox().enqueue(scope, sentRecent);
      await outbox().enqueue(other, deadOld);
      const now = plus(cutoff, 1);
      expect(await outbox().claimDue(now, LEASE)).toHaveLength(3);
      await outbox().markSent([{ scope, id: sentOld.id, messageId: 'm1', sentAt: now, keepPayload: false }]);
      await outbox().markSent([{ scope, id: sentRecent.id, messageId: 'm2', sentAt: now, keepPayload: false }]);
      await outbox().markFailed(other, deadOld.id, { error: 'refused', nextAttemptAt: null, keepPayload: false });
      await outbox().enqueue(scope, sendingOld);
      expect(await outbox().claimDue(now, LEASE)).toHaveLength(1);
      await outbox().enqueue(scope, pendingOld);

      expect(await outbox().deleteFinishedBefore(cutoff, 1)).toBe(1);
      expect(await outbox().deleteFinishedBefore(cutoff, 5)).toBe(1);
      expect(await outbox().deleteFinishedBefore(cutoff, 5)).toBe(0);
      const left = async (tenant: TenantScope, m: NewOutboxMail) => ids(await outbox().listForAddress(tenant, m.to, 5));
      expect(await left(scope, sentOld)).toEqual([]);
      expect(await left(other, deadOld)).toEqual([]);
      for (const kept of [sentRecent, sendingOld, pendingOld]) expect(await left(scope, kept)).toEqual([kept.id]);
    });
  });
}
