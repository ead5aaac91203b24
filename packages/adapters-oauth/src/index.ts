export { HttpOAuthProviderClient, type HttpOAuthProviderClientOptions } from './http-oauth-provider-client';
export { PROVIDER_DEFAULTS, type ProviderEndpoints } from './provider-defaults';
