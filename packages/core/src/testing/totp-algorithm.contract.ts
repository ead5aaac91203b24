import type { TotpAlgorithm } from '../ports/totp-algorithm';

/** RFC 6238 Appendix B (SHA-1 rows), secret "12345678901234567890"; 6-digit codes are the last six digits. */
export const RFC6238_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
export const RFC6238_VECTORS: { unixSeconds: number; code: string }[] = [
  { unixSeconds: 59, code: '287082' },
  { unixSeconds: 1111111109, code: '081804' },
  { unixSeconds: 1111111111, code: '050471' },
  { unixSeconds: 1234567890, code: '005924' },
  { unixSeconds: 2000000000, code: '279037' },
  { unixSeconds: 20000000000, code: '353130' },
];

/**
 * Contract every TotpAlgorithm passes. `independentCode(secret, at)` must come from another
 * implementation (the adapters' tests pass Debian's oathtool), so a shared mistake cannot hide.
 */
export function totpAlgorithmContract(label: string, totp: () => TotpAlgorithm, independentCode?: (secret: string, at: Date) => string): void {
  describe(`TotpAlgorithm contract: ${label}`, () => {
    const seconds = (s: number) => new Date(s * 1000);

    it.each(RFC6238_VECTORS)('matches RFC 6238 at t=$unixSeconds', ({ unixSeconds, code }) => {
      expect(totp().matchStep({ secret: RFC6238_SECRET, code, at: seconds(unixSeconds), window: 0 })).toBe(Math.floor(unixSeconds / 30));
    });

    it('finds codes of neighbouring steps within the window only', () => {
      const step = Math.floor(1111111111 / 30);
      const codeAt = (s: number) => RFC6238_VECTORS.find((v) => Math.floor(v.unixSeconds / 30) === s)?.code;
      expect(codeAt(step)).toBe('050471');
      expect(totp().matchStep({ secret: RFC6238_SECRET, code: '050471', at: seconds((step + 1) * 30), window: 1 })).toBe(step);
      expect(totp().matchStep({ secret: RFC6238_SECRET, code: '050471', at: seconds((step - 1) * 30), window: 1 })).toBe(step);
      expect(totp().matchStep({ secret: RFC6238_SECRET, code: '050471', at: seconds((step + 2) * 30), window: 1 })).toBeNull();
      expect(totp().matchStep({ secret: RFC6238_SECRET, code: '050471', at: seconds((step - 2) * 30), window: 1 })).toBeNull();
    });

    it('refuses wrong and malformed codes', () => {
      for (const code of ['050472', '50471', '0504711', 'abcdef', '']) {
        expect(totp().matchStep({ secret: RFC6238_SECRET, code, at: seconds(1111111111), window: 1 })).toBeNull();
      }
    });

    it('writes a key URI authenticator apps read', () => {
      const url = new URL(totp().keyUri({ secret: RFC6238_SECRET, issuer: 'Acme Inc', account: 'ada@example.com' }));
      expect(url.protocol).toBe('otpauth:');
      expect(url.host).toBe('totp');
      expect(decodeURIComponent(url.pathname)).toBe('/Acme Inc:ada@example.com');
      expect(url.searchParams.get('secret')).toBe(RFC6238_SECRET);
      expect(url.searchParams.get('issuer')).toBe('Acme Inc');
      for (const [name, value] of [
        ['algorithm', 'SHA1'],
        ['digits', '6'],
        ['period', '30'],
      ]) {
        expect(url.searchParams.get(name) ?? value).toBe(value);
      }
    });

    if (independentCode) {
      it('agrees with an independent implementation on random secrets and times', () => {
        for (let i = 0; i < 5; i += 1) {
          const secret = `JBSWY3DPEHPK3PXP${'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.slice(i, i + 16)}`;
          const at = new Date(Date.UTC(2026, 0, 1) + i * 7_919_000);
          expect(totp().matchStep({ secret, code: independentCode(secret, at), at, window: 0 })).toBe(Math.floor(at.getTime() / 30_000));
        }
      });
    }
  });
}
