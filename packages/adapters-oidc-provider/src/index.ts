export { OidcProviderHost, type OidcHostOptions } from './oidc-host';
export type { OidcLog } from './project-issuer';
export { OIDC_ROUTES } from './provider-configuration';
export type { HostRequest } from './request-routing';
export type { PrivateKeyOpener } from './signing-jwks';
