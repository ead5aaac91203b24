import { sameScope, type TenantScope } from '../domain/environment';
import { OUTBOX_STATUSES, type NewOutboxMail, type OutboxMail, type OutboxStatus } from '../domain/mail';
import type { HeldClaim } from '../ports/held-claim';
import type { EnqueueOptions, MailOutbox, SentMail } from '../ports/mail-outbox';
import type { OneTimeTokenStore } from '../ports/one-time-token-store';
import { InMemoryOneTimeTokenStore } from './in-memory-one-time-token-store';

/**
 * Reference MailOutbox in process memory. Every method runs without an await between reading and
 * writing, which makes each one atomic on the event loop (enqueue awaits only the token store,
 * whose in-memory issue() completes synchronously). It shares the token store it is given,
 * so "token and mail together" holds here as it does in one SQL transaction.
 */
export class InMemoryMailOutbox implements MailOutbox {
  private readonly mails = new Map<string, OutboxMail>();

  constructor(private readonly tokens: OneTimeTokenStore = new InMemoryOneTimeTokenStore()) {}

  async enqueue(scope: TenantScope, mail: NewOutboxMail, options: EnqueueOptions = {}): Promise<void> {
    if (this.mails.has(mail.id)) throw new Error('duplicate outbox mail id');
    // issue() rejects before changing anything (duplicate hash), so a failed token stores no mail.
    if (options.token) await this.tokens.issue(scope, options.token.token, { supersede: options.token.supersede });
    if (this.mails.has(mail.id)) throw new Error('duplicate outbox mail id');
    this.mails.set(mail.id, {
      ...structuredClone(mail),
      ...scope,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: mail.createdAt,
      leaseUntil: null,
      lastError: null,
      messageId: null,
      sentAt: null,
    });
  }

  async claimDue(now: Date, options: { limit: number; leaseSeconds: number }): Promise<OutboxMail[]> {
    const due = [...this.mails.values()]
      .filter((m) => (m.status === 'pending' && m.nextAttemptAt <= now) || (m.status === 'sending' && m.leaseUntil! <= now))
      .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, options.limit);
    for (const mail of due) {
      mail.status = 'sending';
      mail.attempts += 1;
      mail.leaseUntil = new Date(now.getTime() + options.leaseSeconds * 1000);
    }
    return due.map((m) => structuredClone(m));
  }

  async markSent(sent: readonly SentMail[]): Promise<void> {
    for (const result of sent) {
      const mail = this.find(result.scope, result.id);
      if (!mail) continue;
      Object.assign(mail, { status: 'sent', messageId: result.messageId, sentAt: result.sentAt, leaseUntil: null });
      if (!result.keepPayload) mail.sealedPayload = null;
    }
  }

  async markFailed(scope: TenantScope, id: string, failure: { error: string; nextAttemptAt: Date | null; keepPayload: boolean }): Promise<void> {
    const mail = this.find(scope, id);
    if (mail?.status !== 'sending') return;
    mail.lastError = failure.error;
    mail.leaseUntil = null;
    if (failure.nextAttemptAt) {
      Object.assign(mail, { status: 'pending', nextAttemptAt: failure.nextAttemptAt });
    } else {
      mail.status = 'dead';
      if (!failure.keepPayload) mail.sealedPayload = null;
    }
  }

  async release(claims: readonly HeldClaim[], dueAt: Date): Promise<void> {
    for (const claim of claims) {
      const mail = this.find(claim.scope, claim.id);
      if (mail?.status !== 'sending' || mail.leaseUntil?.getTime() !== claim.leaseUntil.getTime()) continue;
      Object.assign(mail, { status: 'pending', attempts: mail.attempts - 1, nextAttemptAt: new Date(dueAt), leaseUntil: null });
    }
  }

  async listForAddress(scope: TenantScope, to: string, limit: number): Promise<OutboxMail[]> {
    return this.newestFirst(
      [...this.mails.values()].filter((m) => sameScope(m, scope) && m.to === to),
      limit,
    );
  }

  async listDead(query: { projectId: string; environment?: TenantScope['environment']; limit: number }): Promise<OutboxMail[]> {
    const dead = [...this.mails.values()].filter((m) => m.status === 'dead' && m.projectId === query.projectId && (!query.environment || m.environment === query.environment));
    return this.newestFirst(dead, query.limit);
  }

  async stats(): Promise<Record<OutboxStatus, number>> {
    const counts = Object.fromEntries(OUTBOX_STATUSES.map((s) => [s, 0])) as Record<OutboxStatus, number>;
    for (const mail of this.mails.values()) counts[mail.status] += 1;
    return counts;
  }

  async deleteFinishedBefore(cutoff: Date, limit: number): Promise<number> {
    const finished = [...this.mails.values()].filter((m) => (m.status === 'sent' || m.status === 'dead') && m.createdAt < cutoff).slice(0, limit);
    finished.forEach((m) => this.mails.delete(m.id));
    return finished.length;
  }

  private find(scope: TenantScope, id: string): OutboxMail | undefined {
    const mail = this.mails.get(id);
    return mail && sameScope(mail, scope) ? mail : undefined;
  }

  private newestFirst(mails: OutboxMail[], limit: number): OutboxMail[] {
    return mails
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      .slice(0, limit)
      .map((m) => structuredClone(m));
  }
}
