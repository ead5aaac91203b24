import type { TokenBundle } from '@svc/sdk';
import { sha256 } from './random';

/** How long a finished rotation is handed to late arrivals presenting the same old token. */
export const REFRESH_MEMO_MS = 10_000;

/**
 * Single flight for refreshes. Several tabs of one browser share one refresh cookie; if each sent
 * its own refresh, the second would present a used token and the API would see a replay and
 * revoke every session of the user. Here concurrent refreshes of one token wait for the same
 * call, and for REFRESH_MEMO_MS afterwards a request still carrying the old cookie (sent before
 * the browser stored the new one) gets the same successor instead of a replay. Keys are SHA-256
 * hashes, so no raw token is kept as a map key. Failures are not remembered. Per process:
 * instances behind a load balancer need the API's refreshReuseGraceSeconds too.
 */
export class RefreshFlights<T = TokenBundle> {
  private readonly flights = new Map<string, Promise<T>>();

  constructor(private readonly memoMs: number = REFRESH_MEMO_MS) {}

  async run(refreshToken: string, refresh: () => Promise<T>): Promise<T> {
    const key = await sha256(refreshToken);
    // From here to `set` nothing awaits, so two requests can never both start a call.
    const existing = this.flights.get(key);
    if (existing) return existing;
    const flight = refresh();
    this.flights.set(key, flight);
    const forget = () => {
      if (this.flights.get(key) === flight) this.flights.delete(key);
    };
    flight.then(() => {
      const timer = setTimeout(forget, this.memoMs);
      // Node: the memo must not keep the process alive. Other runtimes answer a number.
      (timer as { unref?: () => void }).unref?.();
    }, forget);
    return flight;
  }

  /** Number of remembered flights (for tests and metrics). */
  get size(): number {
    return this.flights.size;
  }
}
