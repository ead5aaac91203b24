import type * as OidcProviderModule from 'oidc-provider';

/** The oidc-provider module: `default` is the Provider class; `errors` and `interactionPolicy` beside it. */
export type OidcModule = typeof OidcProviderModule;
export type Provider = OidcProviderModule.default;

let loading: Promise<OidcModule> | undefined;

/**
 * oidc-provider 9 is ESM-only and our packages compile to CommonJS. TypeScript (module nodenext)
 * keeps this `import()` as a real dynamic import, which Node loads natively (and jest with
 * --experimental-vm-modules). Loaded once, on first use, so nothing happens at import time.
 */
export function loadOidcModule(): Promise<OidcModule> {
  loading ??= import('oidc-provider');
  return loading;
}
