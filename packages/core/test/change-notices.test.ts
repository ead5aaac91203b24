import { LocalChangeFeed } from '../src/changes/local-change-feed';
import { withChangeNotices } from '../src/changes/publishing-stores';
import { createAuthService } from '../src/create-auth-service';
import { parseChangeNotice, type ChangeNotice } from '../src/ports/change-feed';
import type { AuthError } from '../src/errors';
import type { SecurityEventSink } from '../src/ports/security-event-sink';
import type { UnitOfWork } from '../src/ports/unit-of-work';
import { FixedClock } from '../src/testing/fixed-clock';
import { createInMemoryDeps } from '../src/testing/in-memory-deps';
import { cachedLookup } from '../src/use-cases/cached-lookup';

// Admin changes take effect on the instance that made them before its answer returns, and on the
// instances that hear the notice as soon as they hear it; the caches' TTLs are only the safety net.

describe('a service on its own (no feed given)', () => {
  it('drops a revoked key and a changed plan from its cache at once, well within the 10 s TTL', async () => {
    const service = createAuthService(createInMemoryDeps());
    const created = await service.admin.createProject({ name: 'At once', plan: 'PRO' });
    const key = created.apiKeys.production;
    expect((await service.resolveApiKey(key)).project.plan).toBe('PRO');
    await service.admin.updateProject(created.project.id, { plan: 'FREE' });
    expect((await service.resolveApiKey(key)).project.plan).toBe('FREE');
    const [record] = (await service.admin.listApiKeys(created.project.id)).filter((k) => k.environment === 'production');
    await service.admin.revokeApiKey(created.project.id, record.id);
    await expect(service.resolveApiKey(key)).rejects.toMatchObject({ code: 'invalid_api_key' });
  });
});

describe('two services on shared stores, as two instances on one database', () => {
  function twoInstances() {
    const shared = createInMemoryDeps();
    // The wire between them: what one publishes, the other hears (a stand-in for NOTIFY or pub/sub).
    const feedA = new LocalChangeFeed();
    const feedB = new LocalChangeFeed();
    const wire = (from: LocalChangeFeed, to: LocalChangeFeed) => ({
      publish: async (notice: ChangeNotice) => {
        from.deliver(notice);
        to.deliver(notice);
      },
      subscribe: from.subscribe.bind(from),
      close: async () => undefined,
    });
    const onA = wire(feedA, feedB);
    const onB = wire(feedB, feedA);
    const a = createAuthService(withChangeNotices(shared, onA), { changes: onA });
    const b = createAuthService(withChangeNotices(shared, onB), { changes: onB });
    return { a, b, feedB };
  }

  it('a change made on A reaches the cache of B when B hears the notice', async () => {
    const { a, b } = twoInstances();
    const created = await a.admin.createProject({ name: 'Shared', allowedOrigins: ['https://one.example'] });
    const key = created.apiKeys.sandbox;
    expect((await b.resolveApiKey(key)).project.allowedOrigins).toEqual(['https://one.example']);
    await a.admin.updateProject(created.project.id, { allowedOrigins: ['https://two.example'] });
    expect((await b.resolveApiKey(key)).project.allowedOrigins).toEqual(['https://two.example']);
  });

  it('without the notice B keeps its cached answer (the TTL is then what bounds it)', async () => {
    const shared = createInMemoryDeps();
    const a = createAuthService(shared);
    const b = createAuthService(createInMemoryDeps({ projects: shared.projects, apiKeys: shared.apiKeys }), { changes: new LocalChangeFeed() });
    const created = await a.admin.createProject({ name: 'Deaf', plan: 'PRO' });
    expect((await b.resolveApiKey(created.apiKeys.production)).project.plan).toBe('PRO');
    await a.admin.updateProject(created.project.id, { plan: 'SOLO' });
    expect((await b.resolveApiKey(created.apiKeys.production)).project.plan).toBe('PRO');
  });
});

describe('withChangeNotices', () => {
  it('publishes after each write that changed something, naming its project, and passes reads through', async () => {
    const feed = new LocalChangeFeed();
    const heard: ChangeNotice[] = [];
    feed.subscribe((notice) => heard.push(notice));
    const deps = withChangeNotices(createInMemoryDeps(), feed);
    const service = createAuthService(deps, { changes: feed });
    const created = await service.admin.createProject({ name: 'Noticed' });
    const projectId = created.project.id;
    heard.length = 0;
    await service.admin.updateProject(projectId, { name: 'Renamed' });
    await service.admin.rotateSigningKey({ projectId, environment: 'sandbox' });
    expect(await deps.apiKeys.revoke(projectId, '00000000-0000-4000-8000-000000000000', new Date())).toBe(false);
    await expect(service.admin.banUser({ projectId, environment: 'production' }, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'user_not_found' });
    expect(await deps.projects.findById(projectId)).toMatchObject({ name: 'Renamed' });
    expect(heard).toEqual([
      { kind: 'project', projectId },
      { kind: 'signing-keys', projectId },
    ]);
  });
});

describe('cachedLookup', () => {
  it('does not keep an answer read before a forget (a lookup in flight during the change)', async () => {
    let value = 'old';
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const lookup = cachedLookup(
      new FixedClock(new Date()),
      async () => {
        const read = value;
        await gate;
        return read;
      },
      { ttlSeconds: 10, maxEntries: 10 },
    );
    const inFlight = lookup('k');
    value = 'new';
    lookup.forget();
    release();
    expect(await inFlight).toBe('old');
    expect(await lookup('k')).toBe('new');
  });
});

describe('parseChangeNotice', () => {
  it('accepts the notices and refuses anything else', () => {
    expect(parseChangeNotice({ kind: 'api-keys', projectId: 'p', origin: 'x' })).toEqual({ kind: 'api-keys', projectId: 'p' });
    expect(parseChangeNotice({ kind: 'everything' })).toEqual({ kind: 'everything' });
    for (const bad of [null, 'project', {}, { kind: 'project' }, { kind: 'later-kind', projectId: 'p' }, { kind: 'project', projectId: 7 }]) {
      expect(parseChangeNotice(bad)).toBeNull();
    }
  });
});

describe('inside a unit of work', () => {
  /** A unit of work that logs its moves (the in-memory stores cannot roll back; the order is what is checked). */
  function recordingUnit(log: string[]): UnitOfWork {
    let effects: (() => Promise<void> | void)[] | null = null;
    return {
      async run(work) {
        if (effects) return work();
        effects = [];
        const mine = effects;
        log.push('begin');
        try {
          const result = await work();
          log.push('commit');
          effects = null;
          for (const effect of mine) await effect();
          return result;
        } catch (error) {
          log.push('rollback');
          effects = null;
          throw error;
        }
      },
      afterCommit(effect) {
        if (!effects) return false;
        effects.push(effect);
        return true;
      },
    };
  }

  function serviceWith(log: string[], events?: SecurityEventSink) {
    const feed = new LocalChangeFeed();
    const publishing = { ...feed, publish: async (notice: ChangeNotice) => void log.push(`notice:${notice.kind}`), subscribe: feed.subscribe.bind(feed), close: async () => undefined };
    const deps = withChangeNotices({ ...createInMemoryDeps(), unitOfWork: recordingUnit(log), ...(events ? { events } : {}) }, publishing);
    return createAuthService(deps, { changes: publishing });
  }

  it('a change notice goes out after the commit, not between the write and its record', async () => {
    const log: string[] = [];
    const service = serviceWith(log, { emit: async (_scope, event) => void log.push(`event:${event.type}`) });
    const created = await service.admin.createProject({ name: 'Ordered' });
    const key = await service.resolveApiKey(created.apiKeys.production);
    const { user } = await service.signUp(key, { email: 'ada@example.test', password: 'correct horse battery' });
    log.length = 0;
    await service.admin.banUser(key.scope, user.id);
    expect(log).toEqual(['begin', 'event:user.banned', 'event:session.revoked', 'commit', 'notice:users']);
  });

  it('a unit whose record fails is rolled back and announces nothing', async () => {
    const log: string[] = [];
    let failing = false;
    const service = serviceWith(log, {
      emit: async (_scope, event) => {
        if (failing) throw new Error('audit log unavailable');
        log.push(`event:${event.type}`);
      },
    });
    const created = await service.admin.createProject({ name: 'Refused' });
    const key = await service.resolveApiKey(created.apiKeys.production);
    const { user } = await service.signUp(key, { email: 'ada@example.test', password: 'correct horse battery' });
    log.length = 0;
    failing = true;
    // The sink's failure becomes the outage the edge answers 503, its cause kept for the log.
    const refused = await service.admin.banUser(key.scope, user.id).then(
      () => null,
      (error: unknown) => error as AuthError,
    );
    expect(refused).toMatchObject({ code: 'service_unavailable', details: { dependency: 'audit_log', reason: 'refused' }, cause: new Error('audit log unavailable') });
    expect(log).toEqual(['begin', 'rollback']);
  });
});
