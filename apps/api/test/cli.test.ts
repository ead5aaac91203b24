import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage } from '@svc/adapters-typeorm';
import { createAuthService, sha256Hex, type TenantScope } from '@svc/core';
import { createInMemoryDeps, newId, seedScope, seedUser } from '@svc/core/testing';
import { runCli, USAGE } from '../src/cli';
import { loadConfig } from '../src/composition/config';
import { buildContainer, storageOptionsOf } from '../src/composition/container';
import { resolveSecrets } from '../src/composition/dev-secrets';
import { withRequestContext } from '../src/http/request-context';

function harness() {
  const deps = createInMemoryDeps();
  // As the container wires it: events carry the caller (here the CLI) from the context.
  deps.events = withRequestContext(deps.events!);
  const auth = createAuthService(deps);
  const out: string[] = [];
  const err: string[] = [];
  let opened = 0;
  let closed = 0;
  const run = (...argv: string[]) =>
    runCli(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t) }, async () => {
      opened += 1;
      return { auth, purge: () => auth.admin.purgeExpired(), close: async () => void (closed += 1) };
    });
  const json = () => JSON.parse(out.pop()!);
  return { auth, run, out, err, json, counts: () => ({ opened, closed }) };
}

describe('pnpm svc', () => {
  it('project:create, project:show, api-key:create/revoke, signing-key:rotate', async () => {
    const cli = harness();
    expect(await cli.run('project:create', '--name', 'Shop', '--plan', 'PRO')).toBe(0);
    const created = cli.json();
    expect(created.project).toMatchObject({ name: 'Shop', plan: 'PRO' });
    expect(created.apiKeys.production).toMatch(/^svc_live_/);
    expect(await cli.run('project:show', created.project.id)).toBe(0);
    expect(cli.json().project.id).toBe(created.project.id);
    expect(await cli.run('api-key:create', created.project.id, 'sandbox')).toBe(0);
    const key = cli.json();
    expect(key).toMatchObject({ environment: 'sandbox', key: expect.stringMatching(/^svc_sbx_/) });
    expect(await cli.run('api-key:revoke', created.project.id, key.id)).toBe(0);
    expect(cli.json()).toEqual({ success: true });
    expect(await cli.run('signing-key:rotate', created.project.id, 'production')).toBe(0);
    expect(Object.keys(cli.json()).sort()).toEqual(['kid', 'publicKey']);
    expect(cli.counts()).toEqual({ opened: 5, closed: 5 });
  });

  it('audit-log: the entries, filtered and paged, with the CLI as the actor of what it did', async () => {
    const cli = harness();
    await cli.run('project:create', '--name', 'Audited');
    const { project, apiKeys } = cli.json();
    const key = await cli.auth.resolveApiKey(apiKeys.production);
    const { user } = await cli.auth.signUp(key, { email: 'ada@example.com', password: 'long enough' });
    await cli.run('users:ban', project.id, 'production', user.id);
    expect(await cli.run('audit-log', project.id, 'production', '--type', 'user.banned')).toBe(0);
    expect(cli.json()).toEqual({
      entries: [expect.objectContaining({ type: 'user.banned', userId: user.id, actor: { type: 'admin', via: 'cli' }, clientAddress: null })],
      nextCursor: null,
    });
    expect(await cli.run('audit-log', project.id, 'production', '--user-id', user.id, '--limit', '1')).toBe(0);
    const first = cli.json();
    expect(first.entries).toHaveLength(1);
    expect(await cli.run('audit-log', project.id, 'production', '--user-id', user.id, '--cursor', first.nextCursor)).toBe(0);
    const rest = cli.json().entries.map((e: { type: string }) => e.type);
    // The ban revoked the sign-up's session too: three entries, paged without a repeat.
    expect([first.entries[0].type, ...rest].sort()).toEqual(['session.revoked', 'user.banned', 'user.created']);
    expect(await cli.run('audit-log', project.id, 'production', '--from', 'yesterday')).toBe(1);
    expect(JSON.parse(cli.err.pop()!).error).toBe('validation_error');
  });

  it('stats: sign-ins, sign-ups, refused sign-ins and rate-limited requests per day', async () => {
    const cli = harness();
    await cli.run('project:create', '--name', 'Counted');
    const { project, apiKeys } = cli.json();
    const key = await cli.auth.resolveApiKey(apiKeys.production);
    await cli.auth.signUp(key, { email: 'ada@example.com', password: 'long enough' });
    await cli.auth.logIn(key, { email: 'ada@example.com', password: 'long enough' });
    expect(await cli.run('stats', project.id, 'production', '--days', '2')).toBe(0);
    const today = { day: '2026-01-01', signIns: 1, signUps: 1, signInFailures: 0, rateLimited: 0 };
    expect(cli.json()).toEqual({ days: [{ ...today, day: '2025-12-31', signIns: 0, signUps: 0 }, today], totals: { signIns: 1, signUps: 1, signInFailures: 0, rateLimited: 0 } });
    expect(await cli.run('stats', project.id, 'production')).toBe(0);
    expect(cli.json().days).toHaveLength(14);
    expect(await cli.run('stats', project.id, 'production', '--days', '91')).toBe(1);
    expect(JSON.parse(cli.err.pop()!)).toEqual({ error: 'validation_error', message: 'days must be an integer from 1 to 90.' });
  });

  it('users:list, users:ban, users:unban, users:delete', async () => {
    const cli = harness();
    await cli.run('project:create', '--name', 'P');
    const { project, apiKeys } = cli.json();
    const key = await cli.auth.resolveApiKey(apiKeys.production);
    const { user } = await cli.auth.signUp(key, { email: 'ada@example.com', password: 'long enough' });
    expect(await cli.run('users:list', project.id, 'production', '--email', 'ADA@example.com')).toBe(0);
    expect(cli.json()).toEqual({ users: [expect.objectContaining({ id: user.id, email: 'ada@example.com', banned: false })], nextCursor: null, total: 1 });
    expect(await cli.run('users:ban', project.id, 'production', user.id)).toBe(0);
    expect(cli.json()).toEqual({ success: true });
    await cli.run('users:list', project.id, 'production');
    expect(cli.json().users[0]).toMatchObject({ banned: true });
    expect(await cli.run('users:unban', project.id, 'production', user.id)).toBe(0);
    expect(await cli.run('users:delete', project.id, 'production', user.id)).toBe(0);
    await cli.run('users:list', project.id, 'production');
    expect(cli.json()).toEqual({ users: [], nextCursor: null, total: 0 });
    expect(await cli.run('users:ban', project.id, 'sandbox', crypto.randomUUID())).toBe(1);
    expect(JSON.parse(cli.err.pop()!)).toEqual({ error: 'user_not_found', message: 'The user was not found.' });
  });

  it('project:list, project:delete and the user management commands', async () => {
    const cli = harness();
    await cli.run('project:create', '--name', 'Managed Shop');
    const { project, apiKeys } = cli.json();
    expect(await cli.run('project:list', '--q', 'managed')).toBe(0);
    expect(cli.json()).toMatchObject({ projects: [{ id: project.id }], nextCursor: null });
    expect(await cli.run('users:create', project.id, 'production', '--email', 'Imp@example.com', '--role', 'editor', '--meta', '{"a":1}', '--verified', 'true')).toBe(0);
    const { user } = cli.json();
    expect(user).toMatchObject({ email: 'imp@example.com', role: 'editor', meta: { a: 1 }, emailVerified: true });
    expect(await cli.run('users:update', project.id, 'production', user.id, '--role', 'admin', '--verified', 'false')).toBe(0);
    expect(cli.json().user).toMatchObject({ role: 'admin', emailVerified: false });
    expect(await cli.run('users:update', project.id, 'production', user.id, '--meta', '{nope')).toBe(1);
    expect(JSON.parse(cli.err.pop()!)).toEqual({ error: 'validation_error', message: 'meta must be JSON text (an object).' });
    const key = await cli.auth.resolveApiKey(apiKeys.production);
    const signed = await cli.auth.signUp(key, { email: 'ses@example.com', password: 'long enough' });
    expect(await cli.run('users:list', project.id, 'production', '--q', 'SES')).toBe(0);
    expect(cli.json()).toMatchObject({ total: 1, users: [{ id: signed.user.id }] });
    expect(await cli.run('users:show', project.id, 'production', signed.user.id)).toBe(0);
    const detail = cli.json().user;
    expect(detail).toMatchObject({ email: 'ses@example.com', hasPassword: true, sessions: [{ active: true }] });
    expect(await cli.run('users:revoke-session', project.id, 'production', signed.user.id, detail.sessions[0].id)).toBe(0);
    expect(cli.json()).toEqual({ success: true });
    expect(await cli.run('users:revoke-all-sessions', project.id, 'production', signed.user.id)).toBe(0);
    expect(cli.json()).toEqual({ revoked: 0 });
    expect(await cli.run('project:delete', project.id)).toBe(0);
    expect(await cli.run('project:show', project.id)).toBe(1);
    expect(JSON.parse(cli.err.pop()!)).toEqual({ error: 'not_found', message: 'Project not found.' });
  });

  it('errors are JSON on stderr with exit 1', async () => {
    const cli = harness();
    expect(await cli.run('project:create', '--name', 'x', '--plan', 'GOLD')).toBe(1);
    expect(JSON.parse(cli.err.pop()!)).toEqual({ error: 'validation_error', message: 'plan must be one of FREE, SOLO, PRO.' });
    expect(await cli.run('project:create')).toBe(1);
    expect(JSON.parse(cli.err.pop()!)).toEqual({ error: 'validation_error', message: 'name is required.' });
    expect(await cli.run('project:show', 'nope')).toBe(1);
    expect(JSON.parse(cli.err.pop()!)).toEqual({ error: 'not_found', message: 'Project not found.' });
    expect(await cli.run('api-key:create', crypto.randomUUID(), 'staging')).toBe(1);
    expect(JSON.parse(cli.err.pop()!).error).toBe('validation_error');
  });

  it('usage: help on stdout (exit 0); unknown command, wrong arity or unknown option on stderr (exit 2), without opening storage', async () => {
    const cli = harness();
    expect(await cli.run('help')).toBe(0);
    expect(cli.out.pop()).toBe(USAGE);
    expect(await cli.run('bogus')).toBe(2);
    expect(cli.err.pop()).toContain('Unknown command "bogus".');
    expect(await cli.run('project:show')).toBe(2);
    expect(cli.err.pop()).toContain('project:show takes 1 argument(s).');
    expect(await cli.run('project:create', '--colour', 'red')).toBe(2);
    expect(cli.err.pop()).toContain(USAGE);
    expect(await cli.run()).toBe(2);
    expect(cli.counts()).toEqual({ opened: 0, closed: 0 });
  });

  it('purge deletes expired rows of a SQLite database and prints the counts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-cli-purge-'));
    try {
      const { config } = await resolveSecrets(loadConfig({ SVC_DATA_DIR: dir, SVC_BCRYPT_COST: '4' }));
      const ids = await seedExpiredRows(storageOptionsOf(config));
      const out: string[] = [];
      const run = () => runCli(['purge'], { stdout: (t) => out.push(t), stderr: (t) => out.push(t) }, () => buildContainer(config));
      expect(await run()).toBe(0);
      expect(JSON.parse(out.pop()!)).toEqual({
        purged: { refreshTokens: 1, sessions: 2, oneTimeTokens: 1, outboxMails: 1, oidcArtifacts: 1, knownDevices: 1, auditEntries: 0, webhookMessages: 0, consoleSignOuts: 1, rateLimitedHours: 0 },
      });
      expect(await run()).toBe(0);
      expect(JSON.parse(out.pop()!)).toEqual({
        purged: { refreshTokens: 0, sessions: 0, oneTimeTokens: 0, outboxMails: 0, oidcArtifacts: 0, knownDevices: 0, auditEntries: 0, webhookMessages: 0, consoleSignOuts: 0, rateLimitedHours: 0 },
      });
      const storage = await openStorage(storageOptionsOf(config));
      try {
        expect(await storage.sessions.isActive(ids.scope, ids.liveSession)).toBe(true);
        const now = new Date();
        expect(await storage.oidcArtifacts.find(ids.scope.projectId, 'AuthorizationCode', 'live-code', now)).not.toBeNull();
      } finally {
        await storage.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

/** Through the adapter: one row of each kind from 2001 (long gone), a live session and a live OIDC code. */
async function seedExpiredRows(where: Parameters<typeof openStorage>[0]): Promise<{ scope: TenantScope; liveSession: string }> {
  const storage = await openStorage(where);
  try {
    const scope = await seedScope(storage);
    const user = await seedUser(storage, scope);
    const old = new Date('2001-01-01T00:00:00.000Z');
    const session = (refreshExpiresAt: Date) => ({ id: newId(), userId: user.id, rotationKey: 'k', createdAt: old, refreshTokenHash: sha256Hex(newId()), refreshExpiresAt });
    const [expired, revoked, live] = [session(new Date('2001-01-02T00:00:00.000Z')), session(new Date('2999-01-01T00:00:00.000Z')), session(new Date('2999-01-01T00:00:00.000Z'))];
    for (const s of [expired, revoked, live]) await storage.sessions.create(scope, s);
    await storage.sessions.revoke(scope, revoked.id, old);
    await storage.consoleSignOuts.add('signed-out-long-ago', new Date('2001-01-01T08:00:00.000Z'));
    await storage.consoleSignOuts.add('signed-out-today', new Date('2999-01-01T00:00:00.000Z'));
    await storage.oneTimeTokens.issue(scope, { tokenHash: sha256Hex(newId()), purpose: 'magic_link', userId: user.id, data: {}, createdAt: old, expiresAt: new Date('2001-01-01T00:15:00.000Z') });
    await storage.outbox.enqueue(scope, { id: newId(), to: 'a@example.test', template: 'magic_link', sealedPayload: 's', createdAt: old, expiresAt: new Date('2001-01-01T00:15:00.000Z') });
    const [mail] = await storage.outbox.claimDue(old, { limit: 1, leaseSeconds: 60 });
    await storage.outbox.markSent([{ scope, id: mail.id, messageId: 'm', sentAt: old, keepPayload: false }]);
    const artifact = (id: string, expiresAt: Date) => ({ model: 'AuthorizationCode', id, payload: {}, grantId: 'g', uid: null, userCode: null, expiresAt });
    await storage.oidcArtifacts.upsert(scope.projectId, artifact('expired-code', new Date('2001-01-01T00:01:00.000Z')));
    await storage.oidcArtifacts.upsert(scope.projectId, artifact('live-code', new Date('2999-01-01T00:00:00.000Z')));
    await storage.knownDevices.remember(scope, user.id, ['old-client'], { at: old, keep: 20 });
    await storage.knownDevices.remember(scope, user.id, ['recent-client'], { at: new Date(), keep: 20 });
    return { scope, liveSession: live.id };
  } finally {
    await storage.close();
  }
}
