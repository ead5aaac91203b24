import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectRedis } from '@svc/adapters-redis';
import { createTestSchema } from '@svc/adapters-typeorm/testing';
import { startApiProcess, type ApiProcess } from './api-process';

export interface InstancePairOptions {
  databaseUrl: string;
  adminToken: string;
  /** What both processes add to what they share (rate limits, Redis). */
  env?: Record<string, string>;
  /** What only B adds (a Redis it cannot reach, say), or a function that finds it out first. */
  envB?: Record<string, string> | (() => Promise<Record<string, string>>);
  /** Redis keys under `prefix` are deleted after the suite. */
  redis?: { url: string; prefix: string };
}

/** The two processes, once the suite's beforeAll has started them. */
export interface InstancePair {
  readonly a: ApiProcess;
  readonly b: ApiProcess;
}

/**
 * Two real API processes on one fresh PostgreSQL schema, as two instances behind one load
 * balancer: one master key, one admin token, one issuer. Started in the suite's beforeAll, one
 * after the other (the first runs the migrations on the empty schema); stopped in its afterAll,
 * with the schema dropped, the data folder removed and the Redis keys under `redis.prefix` deleted.
 */
export function useInstancePair(options: InstancePairOptions): InstancePair {
  let schema: Awaited<ReturnType<typeof createTestSchema>> | undefined;
  let dataDir: string | undefined;
  let a: ApiProcess | undefined;
  let b: ApiProcess | undefined;

  beforeAll(async () => {
    schema = await createTestSchema(options.databaseUrl);
    dataDir = await mkdtemp(join(tmpdir(), 'svc-pair-'));
    const env: Record<string, string> = {
      DATABASE_URL: options.databaseUrl,
      SVC_DATABASE_SCHEMA: schema.schema,
      SVC_ADMIN_TOKEN: options.adminToken,
      SVC_MASTER_KEY: randomBytes(32).toString('hex'),
      SVC_BASE_URL: 'http://svc.test',
      SVC_BCRYPT_COST: '4',
      SVC_DATA_DIR: dataDir,
      // The "listening" line, which names the port, is an info line.
      LOG_LEVEL: 'info',
      ...options.env,
    };
    a = await startApiProcess(env);
    const onlyB = typeof options.envB === 'function' ? await options.envB() : options.envB;
    b = await startApiProcess({ ...env, ...onlyB });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await schema?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (options.redis) {
      const redis = await connectRedis(options.redis.url);
      const keys = await redis.keys(`${options.redis.prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
  }, 30_000);

  const started = (process: ApiProcess | undefined): ApiProcess => {
    if (!process) throw new Error('the instance pair starts in beforeAll');
    return process;
  };
  return {
    get a() {
      return started(a);
    },
    get b() {
      return started(b);
    },
  };
}
