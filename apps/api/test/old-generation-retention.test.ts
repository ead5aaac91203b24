import { join } from 'node:path';
import { describeWithRedis } from '@svc/adapters-redis/testing';
import { measureInFreshProcess } from './support/old-generation-bytes';

interface Retained {
  codecSign: number;
  naiveSign: number;
  limiterHit: number;
  redisGet: number;
  nothing: number;
}

// V8 allocates a function literal assigned to a property in the old generation; once dead, it keeps
// what it reaches alive through every young collection until a full one. A refresh signs on libuv's
// pool and every rate-limited request calls Redis, and both paths held such closures
// (docs/decisions.md, "What a finished request leaves behind"). Bytes a call, in a fresh process
// with V8's interpreter only (Node 20 and 24 alike).
describeWithRedis('what a finished call leaves in the old generation', (url) => {
  let bytes: Retained;

  beforeAll(async () => {
    bytes = await measureInFreshProcess<Retained>(join(__dirname, 'support', 'retention.fixture.ts'), { REDIS_URL: url });
  }, 90_000);

  it('sees what a call keeps: a pool sign whose callback holds its resolvers leaves hundreds of bytes, nothing leaves none', () => {
    expect(bytes.naiveSign).toBeGreaterThan(500); // about 700 to 800
    expect(bytes.nothing).toBeLessThan(50);
  });

  it("leaves less per access token signed on libuv's pool than a pool sign that holds its resolvers", () => {
    // Young collections land where they land, so one process reads a spread. Over 22 fresh
    // processes the codec left 223 to 507 bytes less than the naive sign; with its callback keeping
    // the resolvers, 13 read from 182 more to 75 less. 150 lies between the two spreads.
    expect(bytes.naiveSign - bytes.codecSign).toBeGreaterThan(150);
  });

  it('leaves next to nothing once a rate limit hit or a Redis command has answered (ioredis patched)', () => {
    // Patched: a few bytes to about 200 a hit, a few a get. ioredis as published: 900 to 1,900 each.
    expect(bytes.redisGet).toBeLessThan(200);
    expect(bytes.limiterHit).toBeLessThan(500);
  });
});
