import { sha256Hex } from '../src/domain/secrets';
import { isKnownClient } from '../src/use-cases/known-clients';
import { purgeExpired } from '../src/use-cases/purge-expired';
import { InMemoryOidcArtifactStore } from '../src/testing/in-memory-oidc-artifact-store';
import { InMemoryConsoleSignOutStore } from '../src/testing/in-memory-console-sign-out-store';
import { PASSWORD, serviceWithProject } from './helpers';

const DAY = 24 * 60 * 60;

describe('purgeExpired', () => {
  it('deletes what nobody can use any more, in batches until one comes back short, and counts per kind', async () => {
    const { deps, service, production } = await serviceWithProject();
    const expiring = await service.signUp(production, { email: 'ada@example.test', password: PASSWORD });
    const ended = await service.logIn(production, { email: 'ada@example.test', password: PASSWORD });
    if (ended.twoFactorRequired) throw new Error('no second factor expected');
    await service.logOut(production, ended.refreshToken);
    const issued = deps.clock.now();
    for (const n of [1, 2, 3]) {
      await deps.oneTimeTokens.issue(production.scope, {
        tokenHash: sha256Hex(`challenge-${n}`),
        purpose: 'webauthn_challenge',
        userId: null,
        data: {},
        createdAt: issued,
        expiresAt: new Date(issued.getTime() + 300_000),
      });
    }
    const mail = (id: number) => ({
      id: `00000000-0000-4000-8000-00000000000${id}`,
      to: `m${id}@example.test`,
      template: 'magic_link' as const,
      sealedPayload: 's',
      createdAt: deps.clock.now(),
      expiresAt: new Date(deps.clock.now().getTime() + 900_000),
    });
    for (const id of [1, 2, 3]) await deps.outbox.enqueue(production.scope, mail(id));
    for (const claimed of await deps.outbox.claimDue(deps.clock.now(), { limit: 10, leaseSeconds: 60 })) {
      await deps.outbox.markSent([{ scope: production.scope, id: claimed.id, messageId: 'x', sentAt: deps.clock.now(), keepPayload: false }]);
    }
    await deps.outbox.enqueue(production.scope, mail(4));

    deps.clock.advance(61 * DAY);
    const live = await service.signUp(production, { email: 'bob@example.test', password: PASSWORD });
    await deps.outbox.enqueue(production.scope, mail(5));

    const consoleSignOuts = new InMemoryConsoleSignOutStore();
    for (const id of ['a', 'b', 'c']) await consoleSignOuts.add(id, deps.clock.now());
    await consoleSignOuts.add('still-valid', new Date(deps.clock.now().getTime() + 1000));
    expect(await purgeExpired({ ...deps, consoleSignOuts }, { batchSize: 2 })).toEqual({
      refreshTokens: 1,
      sessions: 2,
      oneTimeTokens: 3,
      outboxMails: 3,
      oidcArtifacts: 0,
      knownDevices: 0,
      auditEntries: 0,
      webhookMessages: 0,
      consoleSignOuts: 3,
      rateLimitedHours: 0,
    });
    expect(await consoleSignOuts.has('still-valid')).toBe(true);
    expect(await purgeExpired({ ...deps, consoleSignOuts }, { batchSize: 2 })).toEqual({
      refreshTokens: 0,
      sessions: 0,
      oneTimeTokens: 0,
      outboxMails: 0,
      oidcArtifacts: 0,
      knownDevices: 0,
      auditEntries: 0,
      webhookMessages: 0,
      consoleSignOuts: 0,
      rateLimitedHours: 0,
    });
    await expect(service.refresh(production, expiring.refreshToken)).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    await expect(service.refresh(production, live.refreshToken)).resolves.toBeDefined();
    // Pending mails stay however old; the rest of the outbox is empty.
    expect(await deps.outbox.stats()).toEqual({ pending: 2, sending: 0, sent: 0, dead: 0 });
  });

  it('keeps finished mails inside the retention', async () => {
    const { deps, production } = await serviceWithProject();
    const now = deps.clock.now();
    await deps.outbox.enqueue(production.scope, {
      id: '00000000-0000-4000-8000-000000000001',
      to: 'a@example.test',
      template: 'magic_link',
      sealedPayload: 's',
      createdAt: now,
      expiresAt: new Date(now.getTime() + 900_000),
    });
    const [claimed] = await deps.outbox.claimDue(now, { limit: 1, leaseSeconds: 60 });
    await deps.outbox.markFailed(production.scope, claimed.id, { error: 'refused', nextAttemptAt: null, keepPayload: false });
    deps.clock.advance(DAY);
    expect((await purgeExpired(deps, { outboxRetentionSeconds: 2 * DAY })).outboxMails).toBe(0);
    expect((await purgeExpired(deps)).outboxMails).toBe(0);
    deps.clock.advance(6 * DAY + 1);
    expect((await purgeExpired(deps)).outboxMails).toBe(1);
  });

  it('deletes expired OIDC provider artifacts in batches when the host has the provider, and only those', async () => {
    const { deps, production } = await serviceWithProject();
    const oidcArtifacts = new InMemoryOidcArtifactStore();
    const projectId = production.scope.projectId;
    const artifact = (id: string, expiresInSeconds: number | null) => ({
      model: 'AccessToken',
      id,
      payload: {},
      grantId: 'g1',
      uid: null,
      userCode: null,
      expiresAt: expiresInSeconds === null ? null : new Date(deps.clock.now().getTime() + expiresInSeconds * 1000),
    });
    for (const id of ['a', 'b', 'c']) await oidcArtifacts.upsert(projectId, artifact(id, 60));
    await oidcArtifacts.upsert(projectId, artifact('later', 3600));
    await oidcArtifacts.upsert(projectId, artifact('kept', null));
    deps.clock.advance(120);
    expect((await purgeExpired(deps)).oidcArtifacts).toBe(0); // no store given: nothing of the provider's is touched
    expect((await purgeExpired({ ...deps, oidcArtifacts }, { batchSize: 2 })).oidcArtifacts).toBe(3);
    const now = deps.clock.now();
    expect(await oidcArtifacts.find(projectId, 'AccessToken', 'later', now)).not.toBeNull();
    expect(await oidcArtifacts.find(projectId, 'AccessToken', 'kept', now)).not.toBeNull();
    expect((await purgeExpired({ ...deps, oidcArtifacts })).oidcArtifacts).toBe(0);
  });

  it('forgets known clients 90 days after their last sign-in, not before', async () => {
    const { deps, service, production } = await serviceWithProject();
    await service.signUp(production, { email: 'ada@example.test', password: PASSWORD });
    const signIn = (address: string) => service.logIn(production, { email: 'ada@example.test', password: PASSWORD }, { client: { address } });
    await signIn('198.51.100.1');
    await signIn('198.51.100.2');
    deps.clock.advance(60 * DAY);
    await signIn('198.51.100.2'); // renewed
    deps.clock.advance(31 * DAY);
    expect((await purgeExpired(deps, { batchSize: 1 })).knownDevices).toBe(1);
    expect((await purgeExpired(deps)).knownDevices).toBe(0);
    const user = await deps.users.findByEmail(production.scope, 'ada@example.test');
    const known = async (address: string) => isKnownClient(deps, production.scope, user!.id, { address });
    expect([await known('198.51.100.1'), await known('198.51.100.2')]).toEqual([false, true]);
  });

  it('told to stop (a shutdown), starts no further batch and answers what it deleted so far', async () => {
    const { deps } = await serviceWithProject();
    let stopping = false;
    let batches = 0;
    // A backlog that would take a thousand full batches; the stop comes during the second.
    const sessions = {
      ...deps.sessions,
      deleteRevoked: async (_now: Date, limit: number) => {
        batches += 1;
        if (batches === 2) stopping = true;
        return batches < 1000 ? limit : 0;
      },
    };
    const counts = await purgeExpired({ ...deps, sessions }, { batchSize: 10, stopping: () => stopping });
    expect(batches).toBe(2);
    expect(counts.sessions).toBe(20);
    expect(counts.refreshTokens).toBe(0);
  });

  it('refuses a batch size that could never finish', async () => {
    const { deps } = await serviceWithProject();
    await expect(purgeExpired(deps, { batchSize: 0 })).rejects.toThrow(RangeError);
  });
});
