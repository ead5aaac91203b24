import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { KeyEncryption, Rs256AccessTokenCodec, RsaSigningKeyFactory } from '@svc/adapters-crypto';
import type { TypeormStorage } from '@svc/adapters-typeorm';
import { createAuthService, InMemoryRateLimiter, LocalChangeFeed, withChangeNotices, type AuthDeps } from '@svc/core';
import { createInMemoryDeps, FixedClock, InMemoryOidcArtifactStore, InMemoryOidcClientStore, InMemorySigningKeyStore } from '@svc/core/testing';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/composition/logger';
import { DEFAULT_RATE_LIMITS } from '../../src/http/middleware/rate-limit-rules';
import { buildOidc } from '../../src/composition/oidc-wiring';
import { ADMIN_TOKEN } from '../helpers';

/** One running API instance on an ephemeral loopback port, with the hosted OIDC provider. */
export interface OidcInstance {
  /** The issuer's base URL (SVC_BASE_URL); another instance's when `baseUrl` was given. */
  base: string;
  /** Where this instance really listens. */
  listening: string;
  deps: AuthDeps & { clock: FixedClock };
  logs: string[];
  close(): Promise<void>;
}

/**
 * Starts the real app (Express + oidc-provider + real RS256 keys) on 127.0.0.1:0. Storage is in
 * memory unless `storage` (TypeORM) is given; `baseUrl` lets a second instance share the first's
 * issuer. The core clock is a FixedClock started at the real time (oidc-provider keeps real time).
 */
export async function startInstance(options: { storage?: TypeormStorage; baseUrl?: string } = {}): Promise<OidcInstance> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const listening = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const base = options.baseUrl ?? listening;
  const encryption = new KeyEncryption({ masterKey: Buffer.alloc(32, 9) });
  const clock = new FixedClock(new Date());
  const stored = options.storage;
  const signingKeys = stored?.signingKeys ?? new InMemorySigningKeyStore();
  // As the composition root does: the stores announce admin changes on one feed the caches hear.
  const changes = new LocalChangeFeed();
  const deps = withChangeNotices(
    createInMemoryDeps({
      clock,
      signingKeys,
      keyFactory: new RsaSigningKeyFactory({ encryption }),
      tokens: new Rs256AccessTokenCodec({ signingKeys, encryption }),
      // On a real database, as the composition root: a change and its record are one unit of work.
      ...(stored
        ? {
            projects: stored.projects,
            apiKeys: stored.apiKeys,
            users: stored.users,
            sessions: stored.sessions,
            oneTimeTokens: stored.oneTimeTokens,
            auditLog: stored.auditLog,
            unitOfWork: stored.unitOfWork,
          }
        : {}),
    }),
    changes,
  );
  const logs: string[] = [];
  const logger = createLogger({ level: 'warn', destination: new Writable({ write: (chunk, _e, done) => (logs.push(String(chunk)), done()) }) });
  const oidcStorage = withChangeNotices(stored ?? { oidcClients: new InMemoryOidcClientStore(), oidcArtifacts: new InMemoryOidcArtifactStore() }, changes);
  const oidc = await buildOidc({ storage: oidcStorage, deps, changes, encryption, masterKey: Buffer.alloc(32, 9), baseUrl: base, logger });
  const app = createApp({
    auth: createAuthService(deps, { changes }),
    rateLimiter: new InMemoryRateLimiter(clock),
    logger,
    config: { adminToken: ADMIN_TOKEN, trustProxy: false, rateLimits: structuredClone(DEFAULT_RATE_LIMITS) },
    ready: async () => {},
    oidc,
  });
  server.on('request', app);
  return { base, listening, deps, logs, close: () => closeServer(server) };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A JSON answer; `body` is loosely typed because tests read into it freely. */
export interface JsonAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

type Call = (method: string, path: string, headers: Record<string, string>, body?: unknown) => Promise<JsonAnswer>;

/** JSON over HTTP to an instance: the admin API and the key-bearing API. */
export function api(base: string): {
  admin(method: string, path: string, body?: unknown): Promise<JsonAnswer>;
  keyed(key: string, method: string, path: string, body?: unknown): Promise<JsonAnswer>;
  raw: Call;
} {
  const call: Call = async (method, path, headers, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const adminAuth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  return {
    admin: (method: string, path: string, body?: unknown) => call(method, `/admin${path}`, adminAuth, body),
    keyed: (key: string, method: string, path: string, body?: unknown) => call(method, path, { 'x-api-key': key }, body),
    raw: call,
  };
}
