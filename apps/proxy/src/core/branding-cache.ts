import type { SvcClient } from '@svc/sdk';
import type { ResolvedProxyOptions } from './options';

/** The contract: branding is cached per API key for about five minutes. */
export const BRANDING_TTL_MS = 5 * 60 * 1000;

/**
 * Whether the "powered by" badge must show. With `accountPlan` configured no call is made
 * (FREE shows it). Otherwise the API's answer is cached for BRANDING_TTL_MS per API key, one
 * call at a time; when the call fails, `brandingFallbackPoweredBy` is answered and nothing is
 * cached, so the next request asks again.
 */
export class BrandingCache {
  /** Per API key: the call's answer, until when it counts, and the answer itself once it came. */
  private readonly entries = new Map<string, { value: Promise<boolean>; expiresAt: number; settled?: boolean }>();

  constructor(
    private readonly svc: Pick<SvcClient, 'branding'>,
    private readonly options: Pick<ResolvedProxyOptions, 'apiKey' | 'accountPlan' | 'brandingFallbackPoweredBy' | 'onError'>,
    private readonly now: () => number = Date.now,
  ) {}

  poweredByService(): Promise<boolean> {
    if (this.options.accountPlan !== null) return Promise.resolve(this.options.accountPlan === 'FREE');
    const key = this.options.apiKey;
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > this.now()) return cached.value;
    const value: Promise<boolean> = this.svc.branding().then(
      ({ poweredByService }) => {
        const entry = this.entries.get(key);
        if (entry?.value === value) entry.settled = poweredByService;
        return poweredByService;
      },
      (error: unknown) => {
        this.entries.delete(key);
        this.options.onError(error);
        return this.options.brandingFallbackPoweredBy;
      },
    );
    this.entries.set(key, { value, expiresAt: this.now() + BRANDING_TTL_MS });
    return value;
  }

  /**
   * What `poweredByService()` would resolve to, when that is known now without a call: the
   * configured plan's, or a cached answer of the API that has not expired. Undefined otherwise
   * (never asked, being asked, expired, or the last call failed).
   */
  known(): boolean | undefined {
    if (this.options.accountPlan !== null) return this.options.accountPlan === 'FREE';
    const cached = this.entries.get(this.options.apiKey);
    return cached && cached.expiresAt > this.now() ? cached.settled : undefined;
  }
}
