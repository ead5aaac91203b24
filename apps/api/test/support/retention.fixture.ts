// Run by old-generation-retention.test.ts in a fresh process (measureInFreshProcess): prints how many
// bytes of V8's old generation each kind of finished call leaves behind, as the API makes them.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import type { TenantScope } from '@svc/core';
import { FixedClock, InMemorySigningKeyStore } from '@svc/core/testing';
import { KeyEncryption, Rs256AccessTokenCodec, RsaSigningKeyFactory } from '@svc/adapters-crypto';
import { connectRedis, RedisRateLimiter } from '@svc/adapters-redis';
import { oldGenerationBytesPerCall } from './old-generation-bytes';

const scope: TenantScope = { projectId: 'p-1', environment: 'production' };
const claims = { iss: 'https://auth.example.test', sub: 'u-1', aud: 'p-1', env: 'production', sid: 's-1', email: 'a@example.test', role: 'user', iat: 1, exp: 2, jti: 'j' } as const;

async function main(): Promise<void> {
  const encryption = new KeyEncryption({ masterKey: Buffer.alloc(32, 7) });
  const signingKeys = new InMemorySigningKeyStore();
  await signingKeys.rotate(scope, await new RsaSigningKeyFactory({ encryption }).generate(scope, new Date()));
  const codec = new Rs256AccessTokenCodec({ signingKeys, encryption, signOnThreadPool: true });
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const input = Buffer.from('header.payload');
  // A sign on the pool whose callback keeps its promise's resolvers: what the measure must see.
  const naive = () => new Promise((resolve, reject) => sign('sha256', input, privateKey, (error, signature) => (error ? reject(error) : resolve(signature))));

  const prefix = `svc:test:${randomUUID()}:`;
  const redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { timeoutMs: 2000 });
  const limiter = new RedisRateLimiter({ redis, clock: new FixedClock(), prefix });
  const rule = { limit: 1_000_000, windowSeconds: 60 };
  try {
    const bytes = {
      codecSign: await oldGenerationBytesPerCall(() => codec.sign(scope, claims)),
      naiveSign: await oldGenerationBytesPerCall(naive),
      limiterHit: await oldGenerationBytesPerCall(() => limiter.hit('k', rule)),
      redisGet: await oldGenerationBytesPerCall(() => redis.get(`${prefix}absent`)),
      nothing: await oldGenerationBytesPerCall(async () => ({})),
    };
    process.stdout.write(JSON.stringify(bytes));
  } finally {
    await redis.del(`${prefix}k`);
    await redis.quit();
  }
}

void main();
