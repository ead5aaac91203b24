import { Client } from 'pg';
import type { ChangeNotice } from '@svc/core';
import { changeFeedContract } from '@svc/core/testing';
import { openStorage, type TypeormStorage } from './open-storage';
import { PostgresChangeFeed } from './postgres-change-feed';
import { createTestSchema, describeWithPostgres } from './testing';

/** Resolves with the notices heard once `count` have arrived; rejects after `ms`. */
function hear(feed: PostgresChangeFeed, count: number, ms = 2000): Promise<ChangeNotice[]> {
  const heard: ChangeNotice[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`heard ${JSON.stringify(heard)} within ${ms} ms`)), ms);
    const stop = feed.subscribe((notice) => {
      heard.push(notice);
      if (heard.length < count) return;
      clearTimeout(timer);
      stop();
      resolve(heard);
    });
  });
}

describeWithPostgres('PostgresChangeFeed', (databaseUrl) => {
  let schema: Awaited<ReturnType<typeof createTestSchema>>;
  let storage: TypeormStorage;
  const feeds: PostgresChangeFeed[] = [];
  const open = async (schemaName = schema.schema) => {
    const feed = await PostgresChangeFeed.open({ database: storage.database, connection: { databaseUrl, schema: schemaName } });
    feeds.push(feed);
    return feed;
  };

  beforeAll(async () => {
    schema = await createTestSchema(databaseUrl);
    storage = await openStorage({ databaseUrl, schema: schema.schema });
  });

  afterAll(async () => {
    await Promise.all(feeds.map((feed) => feed.close()));
    await storage?.close();
    await schema?.drop();
  });

  changeFeedContract('PostgresChangeFeed', { open: () => open(), shared: true });

  it('ignores notices of a deployment in another schema of the same database', async () => {
    const mine = await open();
    const other = await open('svc_other_deployment');
    const heard: ChangeNotice[] = [];
    mine.subscribe((notice) => heard.push(notice));
    await other.publish({ kind: 'project', projectId: 'theirs' });
    const sure = hear(mine, 1);
    await (await open()).publish({ kind: 'project', projectId: 'ours' });
    await sure;
    expect(heard).toEqual([{ kind: 'project', projectId: 'ours' }]);
  });

  it('reconnects when its listening connection is killed, telling its listeners to start over, then hears again', async () => {
    const listener = await open();
    const sender = await open();
    expect(listener.listening).toBe(true);
    const startOver = hear(listener, 1, 5000);
    const admin = new Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      // As a server restart or a cut network would end it.
      const killed = await admin.query('SELECT pg_terminate_backend($1) AS done', [listener.listenerPid]);
      expect(killed.rows[0].done).toBe(true);
    } finally {
      await admin.end();
    }
    expect(await startOver).toEqual([{ kind: 'everything' }]);
    expect(listener.listening).toBe(true);
    const next = hear(listener, 1);
    await sender.publish({ kind: 'signing-keys', projectId: 'p2' });
    expect((await next)[0]).toEqual({ kind: 'signing-keys', projectId: 'p2' });
  });
});
