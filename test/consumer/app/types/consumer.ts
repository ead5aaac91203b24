// A TypeScript consumer of every entry point. The test copies it to consumer.mts (ES module) and
// consumer.cts (CommonJS), checked with moduleResolution nodenext, and checks it as is with
// moduleResolution bundler. No top-level await: the CommonJS copy could not have it.
import express from 'express';
import { AuthError, createAuthService, isEnvironment, type AuthDeps, type ErrorCode } from '@svc/core';
import { createInMemoryDeps, FixedClock, sessionStoreContract, type StoragePorts } from '@svc/core/testing';
import { BcryptPasswordHasher, Rs256AccessTokenCodec } from '@svc/adapters-crypto';
import { openStorage, type TypeormStorage } from '@svc/adapters-typeorm';
import { describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { RedisRateLimiter } from '@svc/adapters-redis';
import { waitUntil } from '@svc/adapters-redis/testing';
import { FileMailer, OutboxWorker } from '@svc/adapters-smtp';
import { startTestSmtpServer } from '@svc/adapters-smtp/testing';
import { OtpauthTotp, SimpleWebAuthnVerifier } from '@svc/adapters-mfa';
import { oathtoolTotp } from '@svc/adapters-mfa/testing';
import { HttpOAuthProviderClient } from '@svc/adapters-oauth';
import { startOpenIdProvider } from '@svc/adapters-oauth/testing';
import { OidcProviderHost } from '@svc/adapters-oidc-provider';
import { createSvcClient, isTwoFactorChallenge, SvcError, verifyAccessToken, type AccessTokenClaims, type SvcClient } from '@svc/sdk';
import { undiciRequester } from '@svc/sdk/node';
import { createSessionClient, SessionError, type Session } from '@svc/client';
import { createSessionProxy, requireUser, type SessionProxyOptions } from '@svc/proxy';
import { createApp, loadConfig, HTTP_STATUS, type Config } from '@svc/server';

const deps: AuthDeps = createInMemoryDeps();
const auth = createAuthService(deps);
const code: ErrorCode = 'invalid_credentials';
const error = new AuthError(code);
const clock = new FixedClock();
const status: number = HTTP_STATUS[error.code];
const environment: boolean = isEnvironment('sandbox');
const ports: ((label: string, factory: () => Promise<StoragePorts>) => void)[] = [];
void [auth, clock, status, environment, ports, sessionStoreContract, describeWithPostgres, waitUntil, startTestSmtpServer, oathtoolTotp, startOpenIdProvider];
void [BcryptPasswordHasher, Rs256AccessTokenCodec, RedisRateLimiter, FileMailer, OutboxWorker, OtpauthTotp, SimpleWebAuthnVerifier, HttpOAuthProviderClient, OidcProviderHost];

export function storage(url: string): Promise<TypeormStorage> {
  return openStorage({ databaseUrl: url });
}

export const svc: SvcClient = createSvcClient({ apiKey: 'svc_sbx_example', request: undiciRequester() });

export async function signIn(email: string, password: string): Promise<string | null> {
  try {
    const result = await svc.login({ email, password });
    return isTwoFactorChallenge(result) ? result.twoFactorToken : result.accessToken;
  } catch (caught) {
    if (caught instanceof SvcError && caught.code === 'invalid_credentials') return null;
    throw caught;
  }
}

export function verify(token: string): Promise<AccessTokenClaims> {
  return verifyAccessToken(token, { jwksUrl: 'https://auth.example.com/jwks.json' }, { projectId: 'p', environment: 'production' });
}

export async function currentSession(): Promise<Session | null> {
  try {
    return await createSessionClient({ routePrefix: '/api/session' }).session();
  } catch (caught) {
    if (caught instanceof SessionError) return null;
    throw caught;
  }
}

const options: SessionProxyOptions = { apiKey: 'svc_sbx_example' };
const app = express();
app.use(createSessionProxy(options));
app.get('/api/notes', requireUser({ apiKey: options.apiKey }), (req, res) => {
  res.json({ owner: req.get('x-svc-user-id') });
});

export function api(): express.Express {
  const config: Config = loadConfig({});
  void config;
  return app;
}
void createApp;
