import { MailDeliveryError, outboxMessageId, outboxSealContext, type MailPayload, type OutboxMail } from '../../domain/mail';
import type { SentMail } from '../../ports/mail-outbox';
import type { Mailer } from '../../ports/mailer';
import type { Random } from '../../ports/random';
import type { SecretBox } from '../../ports/secret-box';
import type { AuthDeps } from '../deps';

/** How the worker retries. Defaults: 30 s doubling to at most 1 h, 10 tries; refusals 3 tries. */
export interface DeliveryPolicy {
  /** Mails claimed (and sent in parallel) per round. */
  batchSize: number;
  /** How long a claim is exclusive; must outlast one send (the SMTP adapter times out sooner). */
  leaseSeconds: number;
  baseDelaySeconds: number;
  maxDelaySeconds: number;
  /** Attempts after which a transiently failing mail is dead. */
  maxAttempts: number;
  /** Attempts after which a refused (5xx) mail is dead; 1 = at the first refusal. */
  maxPermanentAttempts: number;
}

export const DEFAULT_DELIVERY_POLICY: Readonly<DeliveryPolicy> = {
  batchSize: 10,
  leaseSeconds: 120,
  baseDelaySeconds: 30,
  maxDelaySeconds: 60 * 60,
  maxAttempts: 10,
  maxPermanentAttempts: 3,
};

export type DeliveryDeps = Pick<AuthDeps, 'clock' | 'random' | 'outbox' | 'secretBox'> & { mailer: Mailer };
export type DeliveryOutcome = 'sent' | 'retried' | 'dead';
export type DeliveryReport = Record<DeliveryOutcome | 'claimed', number>;

/** Told of each mail that failed in a round: why (as stored with the mail) and what became of it. */
export type DeliveryFailureListener = (failure: { mailId: string; outcome: 'retried' | 'dead'; reason: string }) => void;

/**
 * One round of the outbox worker: claims due mails, sends each with its stable Message-ID, and
 * records the outcomes, the round's successful sends together in one write. A crash after a send
 * but before its mark leaves the claim to expire; the next round sends the same message again
 * under the same Message-ID, which receivers dedupe.
 */
export async function deliverOutbox(deps: DeliveryDeps, policy: Partial<DeliveryPolicy> = {}, onFailure?: DeliveryFailureListener): Promise<DeliveryReport> {
  const rules = { ...DEFAULT_DELIVERY_POLICY, ...policy };
  const mails = await deps.outbox.claimDue(deps.clock.now(), { limit: rules.batchSize, leaseSeconds: rules.leaseSeconds });
  const outcomes = await Promise.all(mails.map((mail) => deliverOne(deps, rules, mail, onFailure)));
  const sent = outcomes.filter((outcome): outcome is SentMail => outcome !== 'retried' && outcome !== 'dead');
  if (sent.length > 0) await deps.outbox.markSent(sent);
  const report: DeliveryReport = { claimed: mails.length, sent: sent.length, retried: 0, dead: 0 };
  for (const outcome of outcomes) if (outcome === 'retried' || outcome === 'dead') report[outcome] += 1;
  return report;
}

/** A failure is recorded here at once; a success is returned, for the round to record with the others. */
async function deliverOne(deps: DeliveryDeps, rules: DeliveryPolicy, mail: OutboxMail, onFailure?: DeliveryFailureListener): Promise<SentMail | 'retried' | 'dead'> {
  const now = deps.clock.now();
  // Sandbox payloads stay (sealed) for the sandbox outbox endpoint; production ones are wiped.
  const keepPayload = mail.environment === 'sandbox';
  const fail = async (error: string, nextAttemptAt: Date | null): Promise<'retried' | 'dead'> => {
    await deps.outbox.markFailed(mail, mail.id, { error, nextAttemptAt, keepPayload });
    const outcome = nextAttemptAt ? 'retried' : 'dead';
    onFailure?.({ mailId: mail.id, outcome, reason: error });
    return outcome;
  };
  if (mail.expiresAt <= now) return fail('the link expired before the mail could be sent', null);
  const payload = openPayload(deps.secretBox, mail);
  if (!payload) return fail('the payload cannot be opened (wiped, tampered with, or sealed under another master key)', null);
  let messageId: string;
  try {
    ({ messageId } = await deps.mailer.send({ to: mail.to, subject: payload.subject, text: payload.text, html: payload.html, messageId: outboxMessageId(mail.id) }));
  } catch (error) {
    const retryAt = nextAttemptAt(rules, mail, error, now, deps.random);
    return fail(describe(error), retryAt);
  }
  return { scope: { projectId: mail.projectId, environment: mail.environment }, id: mail.id, messageId, sentAt: deps.clock.now(), keepPayload };
}

/** When to try again, or null when the mail is dead (out of tries, or its link would be dead by then). */
export function nextAttemptAt(rules: DeliveryPolicy, mail: Pick<OutboxMail, 'attempts' | 'expiresAt'>, error: unknown, now: Date, random: Random): Date | null {
  const permanent = error instanceof MailDeliveryError && error.permanent;
  if (mail.attempts >= (permanent ? rules.maxPermanentAttempts : rules.maxAttempts)) return null;
  const at = new Date(now.getTime() + retryDelaySeconds(rules, mail.attempts, random) * 1000);
  return at < mail.expiresAt ? at : null;
}

/**
 * Exponential backoff with "equal jitter": after attempt n the cap is base * 2^(n-1) (at most
 * maxDelay) and the delay is uniform in [cap/2, cap], so failed mails of one outage spread out
 * instead of hitting the recovering server together, yet never retry sooner than half the cap.
 */
export function retryDelaySeconds(rules: Pick<DeliveryPolicy, 'baseDelaySeconds' | 'maxDelaySeconds'>, attempts: number, random: Random): number {
  const cap = Math.min(rules.maxDelaySeconds, rules.baseDelaySeconds * 2 ** Math.max(0, attempts - 1));
  const fraction = new DataView(random.bytes(4).buffer).getUint32(0) / 2 ** 32;
  return cap / 2 + (fraction * cap) / 2;
}

function openPayload(box: SecretBox, mail: OutboxMail): MailPayload | null {
  if (mail.sealedPayload === null) return null;
  try {
    return JSON.parse(box.open(mail.sealedPayload, outboxSealContext(mail.id))) as MailPayload;
  } catch {
    return null;
  }
}

/** The error as stored and shown to operators: a bounded, single-line message. */
function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, ' ').slice(0, 500);
}
