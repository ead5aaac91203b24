// openid-client 6 is ESM-only while this workspace compiles to CommonJS. TypeScript (module
// nodenext) keeps `import()` as is, so the module is loaded once, lazily, with a real dynamic
// import: native on Node 20.19+ and under tsx, and under jest with --experimental-vm-modules.

/** The openid-client module's namespace. */
export type OpenIdClientModule = typeof import('openid-client');

let loading: Promise<OpenIdClientModule> | undefined;

export function openIdClient(): Promise<OpenIdClientModule> {
  loading ??= import('openid-client');
  return loading;
}
