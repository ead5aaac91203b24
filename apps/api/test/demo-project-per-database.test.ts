import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createTestSchema, describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { createLogger } from '../src/composition/logger';
import { announceFirstStart } from '../src/composition/first-start';
import { createSvcServer } from '../src/composition/svc-server';
import type { SvcServerConfig } from '../src/composition/config-object';

// One data folder, first with the embedded SQLite database, then with PostgreSQL, then SQLite
// again: each database keeps its own demo project file, so neither strands the other's keys.

describeWithPostgres('the demo project file, per database', (databaseUrl) => {
  let dir: string;
  let schema: Awaited<ReturnType<typeof createTestSchema>>;
  const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-demo-files-'));
    schema = await createTestSchema(databaseUrl);
  });
  afterAll(async () => {
    await schema?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  /** A first start (development) on `database`: the demo project is created if the database is empty. */
  async function firstStart(database?: SvcServerConfig['database']) {
    const server = await createSvcServer({ dataDir: dir, bcryptCost: 4, ...(database ? { database } : {}) }, { logger });
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await announceFirstStart(server.container, server.secrets, logger);
    } finally {
      write.mockRestore();
      await server.stop();
    }
  }
  const demoFiles = async () => (await readdir(dir)).filter((name) => name.startsWith('demo-project')).sort();
  const read = async (name: string) => JSON.parse(await readFile(join(dir, name), 'utf8')) as { projectId: string };

  it('keeps demo-project.json for SQLite and a file of its own for PostgreSQL', async () => {
    await firstStart();
    expect(await demoFiles()).toEqual(['demo-project.json']);
    const sqlite = await read('demo-project.json');

    await firstStart({ kind: 'postgres', url: databaseUrl, schema: schema.schema });
    const files = await demoFiles();
    expect(files).toHaveLength(2);
    const postgresFile = files.find((name) => name !== 'demo-project.json')!;
    expect(postgresFile).toMatch(/^demo-project\.postgres-[0-9a-f]{12}\.json$/);
    expect((await read(postgresFile)).projectId).not.toBe(sqlite.projectId);
    expect(await read('demo-project.json')).toEqual(sqlite);

    // Back to SQLite: not empty, nothing created, both files as they were.
    await firstStart();
    expect(await demoFiles()).toEqual(files);
    expect(await read('demo-project.json')).toEqual(sqlite);
  }, 60_000);
});
