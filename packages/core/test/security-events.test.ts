import { createAuthService } from '../src/create-auth-service';
import type { SecurityEvent } from '../src/domain/security-event';
import { createInMemoryDeps } from '../src/testing/in-memory-deps';
import { LocalChangeFeed } from '../src/changes/local-change-feed';
import { createEventRecorder } from '../src/use-cases/events/record-event';
import { PASSWORD } from './helpers';

// Events as core emits them through its port, recorded into the audit log by createEventRecorder,
// and kept for the project's retention.

async function started(settings: Parameters<ReturnType<typeof createAuthService>['admin']['createProject']>[0] = { name: 'Events' }) {
  const deps = createInMemoryDeps();
  const service = createAuthService(deps);
  const created = await service.admin.createProject(settings);
  const key = await service.resolveApiKey(created.apiKeys.production);
  return { deps, service, key };
}

describe('security events', () => {
  it('a host without a sink works as before; a sink of its own sees typed events', async () => {
    const seen: SecurityEvent[] = [];
    const deps = createInMemoryDeps({ events: { emit: async (_scope, event) => void seen.push(event) } });
    const service = createAuthService(deps);
    const created = await service.admin.createProject({ name: 'Own sink' });
    const key = await service.resolveApiKey(created.apiKeys.production);
    const { user } = await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
    await expect(service.logIn(key, { email: 'ada@example.test', password: 'not the password' })).rejects.toMatchObject({ code: 'invalid_credentials' });
    expect(seen.map((e) => e.type)).toEqual(['api_key.created', 'signing_key.rotated', 'api_key.created', 'signing_key.rotated', 'user.created', 'user.sign_in_failed']);
    expect(seen[5]).toEqual({ type: 'user.sign_in_failed', userId: user.id, data: { method: 'password', reason: 'invalid_credentials' } });
    const { events: _none, ...withoutSink } = createInMemoryDeps();
    const plain = createAuthService(withoutSink);
    const other = await plain.resolveApiKey((await plain.admin.createProject({ name: 'No sink' })).apiKeys.production);
    await expect(plain.signUp(other, { email: 'bob@example.test', password: PASSWORD })).resolves.toMatchObject({ user: { email: 'bob@example.test' } });
  });

  it('a replay revokes every session by default, and only its own with revoke_session; the event fires either way', async () => {
    for (const response of ['revoke_all_sessions', 'revoke_session'] as const) {
      const { service, key } = await started({ name: response, refreshReuseResponse: response });
      const first = await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
      const second = await service.logIn(key, { email: 'ada@example.test', password: PASSWORD });
      if (second.twoFactorRequired) throw new Error('unexpected challenge');
      await service.refresh(key, first.refreshToken);
      await expect(service.refresh(key, first.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
      const { entries } = await service.admin.auditLog(key.scope, { type: 'refresh_token.reused' });
      expect(entries).toHaveLength(1);
      expect(entries[0].data).toMatchObject({ response, sessionsRevoked: response === 'revoke_session' ? 1 : 2 });
      const other = service.refresh(key, second.refreshToken);
      if (response === 'revoke_session') await expect(other).resolves.toMatchObject({ expiresIn: 900 });
      else await expect(other).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    }
  });

  it('keeps entries for the project retention, then the purge deletes them', async () => {
    const { deps, service, key } = await started({ name: 'Short memory', auditRetentionDays: 2 });
    await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
    const sandbox = { ...key.scope, environment: 'sandbox' } as const;
    const before = (await service.admin.auditLog(key.scope, {})).entries.length + (await service.admin.auditLog(sandbox, {})).entries.length;
    expect(before).toBeGreaterThan(0);
    deps.clock.advance(2 * 24 * 3600 - 1);
    expect((await service.admin.purgeExpired()).auditEntries).toBe(0);
    deps.clock.advance(1);
    expect((await service.admin.purgeExpired()).auditEntries).toBe(before);
    expect((await service.admin.auditLog(key.scope, {})).entries).toEqual([]);
    expect((await service.admin.auditLog(sandbox, {})).entries).toEqual([]);
  });

  it("keeps a project's retention between events until a notice says the project changed; without a feed, reads it each time", async () => {
    const { deps, key } = await started({ name: 'Kept retention', auditRetentionDays: 30 });
    const feed = new LocalChangeFeed();
    const reads = jest.spyOn(deps.projects, 'findById');
    const event: SecurityEvent = { type: 'user.sign_in_failed', data: { method: 'password', reason: 'invalid_credentials' } };
    const days = async () => {
      const [entry] = await deps.auditLog.list(key.scope, { type: 'user.sign_in_failed', limit: 1 });
      return Math.round((entry.expiresAt.getTime() - entry.at.getTime()) / 86_400_000);
    };
    const kept = createEventRecorder({ ...deps, changes: feed });
    await kept.emit(key.scope, event);
    await kept.emit(key.scope, event);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(await days()).toBe(30);
    await deps.projects.update(key.scope.projectId, { auditRetentionDays: 7 }, deps.clock.now());
    await feed.publish({ kind: 'project', projectId: '11111111-1111-4111-8111-111111111111' });
    await kept.emit(key.scope, event);
    expect(reads).toHaveBeenCalledTimes(1);
    await feed.publish({ kind: 'project', projectId: key.scope.projectId });
    deps.clock.advance(1);
    await kept.emit(key.scope, event);
    expect(reads).toHaveBeenCalledTimes(2);
    expect(await days()).toBe(7);
    reads.mockClear();
    const unkept = createEventRecorder(deps);
    await unkept.emit(key.scope, event);
    await unkept.emit(key.scope, event);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('keeps the entry that records a change of the retention for the new retention, though the old one was kept', async () => {
    const feed = new LocalChangeFeed();
    const deps = createInMemoryDeps();
    const service = createAuthService({ ...deps, events: createEventRecorder({ ...deps, changes: feed }) });
    const created = await service.admin.createProject({ name: 'Changing retention', auditRetentionDays: 30 });
    const scope = { projectId: created.project.id, environment: 'production' } as const;
    const daysOf = async (type: SecurityEvent['type']) => {
      const [entry] = await deps.auditLog.list(scope, { type, limit: 1 });
      return Math.round((entry.expiresAt.getTime() - entry.at.getTime()) / 86_400_000);
    };
    // The project's creation was recorded for 30 days, and the retention is now kept.
    expect(await daysOf('api_key.created')).toBe(30);
    for (const days of [7, 365]) {
      // A second later each time: the log lists the newest entry first by its time.
      deps.clock.advance(1);
      await service.admin.updateProject(created.project.id, { auditRetentionDays: days });
      expect(await daysOf('project.updated')).toBe(days);
    }
  });

  it('pages with an opaque cursor and refuses a forged one', async () => {
    const { service, key } = await started();
    for (const name of ['a', 'b', 'c']) await service.signUp(key, { email: `${name}@example.test`, password: PASSWORD });
    const first = await service.admin.auditLog(key.scope, { limit: 2 });
    expect(first.nextCursor).not.toBeNull();
    const second = await service.admin.auditLog(key.scope, { limit: 10, cursor: first.nextCursor! });
    expect(second.nextCursor).toBeNull();
    expect(first.entries.length + second.entries.length).toBe((await service.admin.auditLog(key.scope, { limit: 200 })).entries.length);
    await expect(service.admin.auditLog(key.scope, { cursor: 'forged' })).rejects.toMatchObject({ code: 'validation_error' });
  });

  it('rejects settings outside their rules', async () => {
    const { service } = await started();
    await expect(service.admin.createProject({ name: 'x', auditRetentionDays: 0 })).rejects.toMatchObject({ code: 'validation_error' });
    await expect(service.admin.createProject({ name: 'x', refreshReuseResponse: 'shrug' as never })).rejects.toMatchObject({ code: 'validation_error' });
    await expect(service.admin.createProject({ name: 'x', refreshReuseNotice: 'yes' as never })).rejects.toMatchObject({ code: 'validation_error' });
  });
});
