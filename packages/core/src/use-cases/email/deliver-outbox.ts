import { MailDeliveryError, outboxMessageId, outboxSealContext, type MailPayload, type OutboxMail } from '../../domain/mail';
import type { HeldClaim } from '../../ports/held-claim';
import type { SentMail } from '../../ports/mail-outbox';
import type { Mailer } from '../../ports/mailer';
import type { Random } from '../../ports/random';
import type { SecretBox } from '../../ports/secret-box';
import type { AuthDeps } from '../deps';

/**
 * How the worker claims, sends and retries. Defaults: claims of 50 sent 10 at a time, each send
 * given at most 60 s; retries 30 s doubling to at most 1 h, 10 tries; refusals 3 tries.
 */
export interface DeliveryPolicy {
  /** Mails claimed per round (the lease is sized to the whole claim: `deliveryClaim`). */
  batchSize: number;
  /** Sends of a round in flight at once; the rest of the claim waits for a free slot. */
  concurrency: number;
  /**
   * The longest one send may take; the mailer must give up sooner (the SMTP adapter does: 10 s
   * to connect, 10 s for the greeting, 30 s of silence). The claim's lease is sized from it.
   */
  sendTimeoutSeconds: number;
  baseDelaySeconds: number;
  maxDelaySeconds: number;
  /** Attempts after which a transiently failing mail is dead. */
  maxAttempts: number;
  /** Attempts after which a refused (5xx) mail is dead; 1 = at the first refusal. */
  maxPermanentAttempts: number;
}

export const DEFAULT_DELIVERY_POLICY: Readonly<DeliveryPolicy> = {
  batchSize: 50,
  concurrency: 10,
  sendTimeoutSeconds: 60,
  baseDelaySeconds: 30,
  maxDelaySeconds: 60 * 60,
  maxAttempts: 10,
  maxPermanentAttempts: 3,
};

/**
 * What a claim's lease holds beyond its sends: the first half for the moments before and between
 * them (the claim's statement, opening the payloads, the event loop's turns), the second for the
 * round's writes after the last one.
 */
export const CLAIM_MARGIN_SECONDS = 30;

/**
 * One round's claim: up to `batchSize` mails, leased for as long as sending all of them takes at
 * worst: `concurrency` at a time, so ceil(batchSize / concurrency) sends one after another in a
 * slot, each at most `sendTimeoutSeconds`, plus `CLAIM_MARGIN_SECONDS`. With the defaults 50 mails
 * for 5 x 60 + 30 = 330 s. `deliverOutbox` starts no send that could end in the lease's last
 * `CLAIM_MARGIN_SECONDS / 2` (the round's writes), so a slow or hung server cannot make a claim
 * outlive its lease.
 */
export function deliveryClaim(policy: Pick<DeliveryPolicy, 'batchSize' | 'concurrency' | 'sendTimeoutSeconds'>): { limit: number; leaseSeconds: number } {
  const { batchSize, concurrency, sendTimeoutSeconds } = policy;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError('batchSize must be a positive integer');
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
  if (!(sendTimeoutSeconds > 0)) throw new RangeError('sendTimeoutSeconds must be positive');
  return { limit: batchSize, leaseSeconds: Math.ceil(batchSize / concurrency) * sendTimeoutSeconds + CLAIM_MARGIN_SECONDS };
}

export type DeliveryDeps = Pick<AuthDeps, 'clock' | 'random' | 'outbox' | 'secretBox'> & { mailer: Mailer };
/** What became of each claimed mail: `released` went back to the outbox unsent, untried (`MailOutbox.release`). */
export type DeliveryOutcome = 'sent' | 'retried' | 'dead' | 'released';
export type DeliveryReport = Record<DeliveryOutcome | 'claimed', number>;

/** Told of each mail that failed in a round: why (as stored with the mail) and what became of it. */
export type DeliveryFailureListener = (failure: { mailId: string; outcome: 'retried' | 'dead'; reason: string }) => void;

/**
 * One round of the outbox worker: claims due mails (`deliveryClaim`), sends each with its stable
 * Message-ID, at most `concurrency` at a time, and records the outcomes: a failure at once, the
 * round's successful sends together in one write at its end. A crash after a send but before its
 * mark leaves the claim to expire; the next round sends the same message again under the same
 * Message-ID, which receivers dedupe. A mail whose send could not end within the lease any more
 * (the sends before it were slow) is not sent: it counts as a transient failure and is retried.
 * Once `control.stopping()` answers true (the service is shutting down) no send starts, as in
 * `deliverWebhooks`: the claim's mails not sent yet are released (`MailOutbox.release`, with the
 * round's other records at its end): pending, due at once (another instance, or this one's next
 * start, sends them without waiting for the lease), their tries not spent; the sends in flight end
 * as they end.
 */
export async function deliverOutbox(
  deps: DeliveryDeps,
  policy: Partial<DeliveryPolicy> = {},
  onFailure?: DeliveryFailureListener,
  control: { stopping?: () => boolean } = {},
): Promise<DeliveryReport> {
  const stopping = control.stopping ?? (() => false);
  const rules = { ...DEFAULT_DELIVERY_POLICY, ...policy };
  const claim = deliveryClaim(rules);
  const claimedAt = deps.clock.now();
  const mails = await deps.outbox.claimDue(claimedAt, claim);
  // The last moment a send may start and still end (sendTimeoutSeconds later) before the half of
  // the margin kept for the round's writes. A send started at the lease's nominal slot (the first
  // wave right after the claim, the last one after its slot's earlier sends each took their whole
  // timeout) has the other half for whatever came between.
  const lastStart = claimedAt.getTime() + (claim.leaseSeconds - CLAIM_MARGIN_SECONDS / 2 - rules.sendTimeoutSeconds) * 1000;
  const outcomes: (SentMail | 'retried' | 'dead' | 'released')[] = [];
  let next = 0;
  const slot = async () => {
    for (let i = next++; i < mails.length; i = next++) outcomes[i] = await deliverOne(deps, rules, mails[i], { lastStart, stopping }, onFailure);
  };
  await Promise.all(Array.from({ length: Math.min(rules.concurrency, mails.length) }, slot));
  const sent = outcomes.filter((outcome): outcome is SentMail => typeof outcome === 'object');
  if (sent.length > 0) await deps.outbox.markSent(sent);
  // A claimed mail always carries its lease (`claimDue`); release names each by it.
  const released = mails.flatMap((mail, i): HeldClaim[] =>
    outcomes[i] === 'released' && mail.leaseUntil ? [{ scope: { projectId: mail.projectId, environment: mail.environment }, id: mail.id, leaseUntil: mail.leaseUntil }] : [],
  );
  if (released.length > 0) await deps.outbox.release(released, deps.clock.now());
  const report: DeliveryReport = { claimed: mails.length, sent: sent.length, retried: 0, dead: 0, released: 0 };
  for (const outcome of outcomes) if (typeof outcome === 'string') report[outcome] += 1;
  return report;
}

/** A failure is recorded here at once; a success or a release is returned, for the round to record with the others. */
async function deliverOne(
  deps: DeliveryDeps,
  rules: DeliveryPolicy,
  mail: OutboxMail,
  round: { lastStart: number; stopping: () => boolean },
  onFailure?: DeliveryFailureListener,
): Promise<SentMail | 'retried' | 'dead' | 'released'> {
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
  // Not a failure: the mail goes back as it was before the claim (the round releases it at its end).
  if (round.stopping()) return 'released';
  if (now.getTime() > round.lastStart) {
    const late = new MailDeliveryError('not sent: the sends before it in its claim took too long (a slow mail server)', { permanent: false });
    return fail(late.message, nextAttemptAt(rules, mail, late, now, deps.random));
  }
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
