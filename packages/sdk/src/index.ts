// Public surface of @svc/sdk: the typed API client and local access-token verification.
export { createSvcClient, DEFAULT_TIMEOUT_MS, type SvcClient, type SvcClientOptions, type UserCallOptions } from './create-svc-client';
export { verifyAccessToken, type AccessTokenClaims, type ExpectedToken, type VerificationKey } from './verify-access-token';
export { SvcError, isSvcError } from './svc-error';
export { resolveBaseUrl, DEFAULT_BASE_URL } from './base-url';
export { DEFAULT_RETRY, type RetryOptions } from './retry';
export { callHeaders, type CallOptions } from './transport';
export { fetchRequester, type HttpAnswer, type HttpRequest, type HttpRequester } from './http-requester';
export * from './types';
