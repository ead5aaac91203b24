import type { TenantScope } from '../domain/environment';

/**
 * One item of a worker's claim on a queue (the mail outbox, the webhook messages), named with the
 * lease it was claimed under: the item is still this claim's while it is `sending` under that very
 * lease (not taken over by another worker after the lease ran out, not finished).
 */
export interface HeldClaim {
  scope: TenantScope;
  id: string;
  leaseUntil: Date;
}
