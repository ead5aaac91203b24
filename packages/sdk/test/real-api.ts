import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Server } from 'node:http';
import { BcryptPasswordHasher, KeyEncryption, Rs256AccessTokenCodec, RsaSigningKeyFactory } from '@svc/adapters-crypto';
import { createApp, createLogger, loadConfig } from '@svc/server';
import { createAuthService, InMemoryRateLimiter, type AuthDeps } from '@svc/core';
import { createInMemoryDeps, FixedClock, InMemorySigningKeyStore } from '@svc/core/testing';

// The real API for SDK, proxy and browser tests: createApp over in-memory storage, but with the
// real RS256 codec and bcrypt (cost 4), so access tokens are genuine JWTs that jose can verify.
// It listens on an ephemeral loopback port and is driven over real HTTP only.

const ADMIN_TOKEN = 'sdk-test-admin-token-0123456789abcdefghijk';
const GENEROUS = { limit: 10_000, windowSeconds: 60 };

export interface RealApi {
  url: string;
  clock: FixedClock;
  deps: AuthDeps;
  close(): Promise<void>;
  /** Creates a project through the admin API. */
  createProject(body?: Record<string, unknown>): Promise<TestProject>;
  /** Calls the admin API; answers the parsed body. */
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** The link of the newest sandbox mail to `email` (the admin API's sandbox outbox). */
  lastSandboxLink(projectId: string, email: string): Promise<URL>;
  /** The 6-digit code of the newest sandbox mail to `email`. */
  lastSandboxCode(projectId: string, email: string): Promise<string>;
}

export interface TestProject {
  id: string;
  live: string;
  sandbox: string;
  publicKeys: { production: string; sandbox: string };
}

/**
 * Starts the API. The clock is fixed at the real current time (jose checks `exp` against the
 * real clock) and moves only when a test advances it. Rate limits are generous unless
 * `rateLimits` says otherwise; `overrides` swaps adapters (e.g. the real WebAuthn verifier).
 */
export async function startRealApi(options: { overrides?: Partial<AuthDeps>; rateLimits?: object } = {}): Promise<RealApi> {
  const clock = new FixedClock(new Date());
  const encryption = new KeyEncryption({ masterKey: Buffer.alloc(32, 7) });
  const signingKeys = new InMemorySigningKeyStore();
  const deps = createInMemoryDeps({
    clock,
    signingKeys,
    keyFactory: new RsaSigningKeyFactory({ encryption }),
    tokens: new Rs256AccessTokenCodec({ signingKeys, encryption, clock }),
    passwords: new BcryptPasswordHasher({ cost: 4 }),
    ...options.overrides,
  });
  const rateLimits = options.rateLimits ?? { signup: GENEROUS, login: GENEROUS, refresh: GENEROUS, magicLink: GENEROUS, passwordReset: GENEROUS };
  const config = { ...loadConfig({ SVC_RATE_LIMITS: JSON.stringify(rateLimits) }), adminToken: ADMIN_TOKEN };
  const silent = createLogger({ level: 'silent', destination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
  const app = createApp({ auth: createAuthService(deps), rateLimiter: new InMemoryRateLimiter(clock), logger: silent, config, ready: async () => {} });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    clock,
    deps,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    admin,
    createProject: async (body = { name: 'SDK test project' }) => {
      const res = await admin('POST', '/admin/projects', body);
      if (res.status !== 201) throw new Error(`project creation failed: ${res.status} ${JSON.stringify(res.body)}`);
      const { data } = res.body as { data: { project: { id: string }; apiKeys: { production: string; sandbox: string }; publicKeys: TestProject['publicKeys'] } };
      return { id: data.project.id, live: data.apiKeys.production, sandbox: data.apiKeys.sandbox, publicKeys: data.publicKeys };
    },
    lastSandboxLink: async (projectId, email) => {
      const res = await admin('GET', `/admin/projects/${projectId}/environments/sandbox/outbox?email=${encodeURIComponent(email)}`);
      const link = res.body?.data?.mails?.[0]?.links?.[0];
      if (typeof link !== 'string') throw new Error(`no sandbox mail to ${email}: ${JSON.stringify(res.body)}`);
      return new URL(link);
    },
    lastSandboxCode: async (projectId, email) => {
      const res = await admin('GET', `/admin/projects/${projectId}/environments/sandbox/outbox?email=${encodeURIComponent(email)}`);
      const code = res.body?.data?.mails?.[0]?.code;
      if (typeof code !== 'string') throw new Error(`no sandbox code to ${email}: ${JSON.stringify(res.body)}`);
      return code;
    },
  };

  async function admin(method: string, path: string, body?: unknown) {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  }
}
