import { randomBytes } from 'node:crypto';
import type { ChangeNotice } from '@svc/core';
import { changeFeedContract } from '@svc/core/testing';
import { RedisChangeFeed } from './redis-change-feed';
import { describeWithRedis, OutageProxy, waitUntil } from './testing';

describeWithRedis('RedisChangeFeed', (redisUrl) => {
  const prefix = `svc:test:${randomBytes(6).toString('hex')}:`;
  const feeds: RedisChangeFeed[] = [];
  let proxy: OutageProxy | undefined;
  const open = async (url = redisUrl, channelPrefix = prefix) => {
    const feed = await RedisChangeFeed.open({ url, prefix: channelPrefix });
    feeds.push(feed);
    return feed;
  };
  const recorder = (feed: RedisChangeFeed) => {
    const heard: ChangeNotice[] = [];
    feed.subscribe((notice) => heard.push(notice));
    return heard;
  };

  afterAll(async () => {
    await Promise.all(feeds.map((feed) => feed.close()));
    await proxy?.down();
  });

  changeFeedContract('RedisChangeFeed', { open: () => open(), shared: true });

  it('ignores another prefix (another deployment on the same Redis)', async () => {
    const mine = await open();
    const heard = recorder(mine);
    await (await open(redisUrl, `${prefix}other:`)).publish({ kind: 'project', projectId: 'theirs' });
    await (await open()).publish({ kind: 'project', projectId: 'ours' });
    await waitUntil(() => heard.length > 0, 1000);
    expect(heard).toEqual([{ kind: 'project', projectId: 'ours' }]);
  });

  it('after losing Redis, tells its listeners to start over once back, then hears again', async () => {
    proxy = await OutageProxy.start(redisUrl);
    const listener = await open(proxy.url(redisUrl));
    const sender = await open();
    const heard = recorder(listener);
    await proxy.down();
    await proxy.up();
    await waitUntil(() => heard.some((notice) => notice.kind === 'everything'), 10_000);
    await waitUntil(async () => {
      await sender.publish({ kind: 'users', projectId: 'p3' });
      return heard.some((notice) => notice.kind === 'users');
    }, 5000);
  });
});
