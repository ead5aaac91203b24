/** Entry points the README, docs/ and the package READMEs document. */
export const DOCUMENTED_ENTRIES = [
  '@svc/core',
  '@svc/core/testing',
  '@svc/adapters-crypto',
  '@svc/adapters-typeorm',
  '@svc/adapters-typeorm/testing',
  '@svc/adapters-redis',
  '@svc/adapters-redis/testing',
  '@svc/adapters-smtp',
  '@svc/adapters-smtp/testing',
  '@svc/adapters-mfa',
  '@svc/adapters-mfa/testing',
  '@svc/adapters-oauth',
  '@svc/adapters-oauth/testing',
  '@svc/adapters-oidc-provider',
  '@svc/sdk',
  '@svc/sdk/node',
  '@svc/client',
  '@svc/client/browser',
  '@svc/proxy',
  '@svc/proxy/web',
  '@svc/server',
];

/** Names the documentation uses, per entry point. */
export const DOCUMENTED_EXPORTS: Record<string, string[]> = {
  '@svc/core': ['createAuthService', 'AuthError', 'ERROR_CODES'],
  '@svc/core/testing': ['createInMemoryDeps', 'createInMemoryStorage', 'sessionStoreContract', 'userRepositoryContract', 'rateLimiterContract'],
  '@svc/sdk': ['createSvcClient', 'isTwoFactorChallenge', 'SvcError', 'isSvcError', 'verifyAccessToken'],
  '@svc/sdk/node': ['undiciRequester'],
  '@svc/client': ['createSessionClient', 'SessionError'],
  '@svc/client/browser': ['createSessionClient', 'SessionError'],
  '@svc/proxy': ['createSessionProxy', 'requireUser', 'startProxyServer', 'loadProxyConfig'],
  '@svc/proxy/web': ['createSessionHandler', 'createUserGuard'],
  '@svc/server': ['createSvcServer', 'createApp', 'buildContainer', 'loadConfig'],
};
