/** How calls that are safe to repeat are retried on 429 and on network errors. */
export interface RetryOptions {
  /** Extra attempts after the first; 0 turns retrying off. Default 2. */
  retries: number;
  /** Base of the exponential backoff in ms. Default 200. */
  baseMs: number;
  /** Cap of one wait in ms; a `Retry-After` longer than this is not waited for. Default 5000. */
  maxMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 2, baseMs: 200, maxMs: 5_000 };

/**
 * "Full jitter" backoff (AWS Architecture Blog, "Exponential Backoff And Jitter"): a uniform wait
 * in [0, min(maxMs, baseMs * 2^attempt)]. Spreading retries this way keeps many clients that were
 * limited together from coming back together.
 */
export function backoffMs(attempt: number, options: RetryOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
