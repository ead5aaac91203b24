import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage, type TypeormStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';

// The Database as core's UnitOfWork, on both databases: statements and store transactions made
// inside `run` are one transaction; effects wait for the commit; others do not see the work
// before it commits; work a unit leaves running goes on by itself afterwards.

function unitCases(open: () => Promise<{ storage: TypeormStorage; close(): Promise<void> }>) {
  let storage: TypeormStorage;
  let close: () => Promise<void>;
  const count = async () => Number((await storage.database.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM unit_probe'))[0].n);

  beforeAll(async () => {
    ({ storage, close } = await open());
    await storage.database.query('CREATE TABLE unit_probe (id text PRIMARY KEY)');
  });
  afterAll(async () => {
    await close?.();
  });
  beforeEach(async () => {
    await storage.database.query('DELETE FROM unit_probe');
  });

  const insert = (id: string) => storage.database.query('INSERT INTO unit_probe (id) VALUES ($1)', [id]);

  it('commits statements and joined transactions together, then runs the effects in order', async () => {
    const seen: string[] = [];
    const result = await storage.database.run(async () => {
      await insert('a');
      await storage.database.transaction((tx) => tx.query('INSERT INTO unit_probe (id) VALUES ($1)', ['b']), { lock: 'unit-probe' });
      expect(storage.database.afterCommit(async () => void seen.push(`first:${await count()}`))).toBe(true);
      expect(storage.database.afterCommit(() => void seen.push('second'))).toBe(true);
      // A nested unit joins the outer one.
      await storage.database.run(() => insert('c'));
      expect(seen).toEqual([]);
      return 'done';
    });
    expect(result).toBe('done');
    expect(seen).toEqual(['first:3', 'second']);
    expect(await count()).toBe(3);
  });

  it('rolls every write back when the work fails, nested units and store transactions included, and runs no effect', async () => {
    let effects = 0;
    const failing = storage.database.run(async () => {
      await insert('a');
      await storage.database.run(() => storage.database.transaction((tx) => tx.query('INSERT INTO unit_probe (id) VALUES ($1)', ['b'])));
      storage.database.afterCommit(() => void effects++);
      throw new Error('the audit entry could not be written');
    });
    await expect(failing).rejects.toThrow('the audit entry could not be written');
    expect(await count()).toBe(0);
    expect(effects).toBe(0);
    // Outside a unit nothing is deferred: the caller runs the effect itself.
    expect(storage.database.afterCommit(() => void effects++)).toBe(false);
    expect(effects).toBe(0);
  });

  it('a store transaction that fails inside a unit rolls back alone; the unit goes on and commits', async () => {
    await storage.database.run(async () => {
      await insert('a');
      // A duplicate key, as a store that expects and handles a refusal meets it.
      await expect(storage.database.transaction((tx) => tx.query('INSERT INTO unit_probe (id) VALUES ($1)', ['a']))).rejects.toThrow();
      await storage.database.transaction((tx) => tx.query('INSERT INTO unit_probe (id) VALUES ($1)', ['b']));
    });
    expect(await count()).toBe(2);
  });

  it('keeps the open work from others: they wait (SQLite) or read what was committed (PostgreSQL)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const unit = storage.database.run(async () => {
      await insert('a');
      inserted();
      await gate;
    });
    await insertedYet;
    // This call is not inside the unit (its async context is the test's).
    const outside = count();
    if (storage.kind === 'postgres') expect(await outside).toBe(0);
    release();
    await unit;
    if (storage.kind === 'sqlite') expect(await outside).toBe(1);
    expect(await count()).toBe(1);
  });

  it('work a unit started and left running goes on by itself once the unit is over', async () => {
    let later!: Promise<unknown>;
    await storage.database.run(async () => {
      await insert('a');
      later = new Promise((resolve) => setTimeout(resolve, 20)).then(() => insert('b'));
    });
    await later;
    expect(await count()).toBe(2);
    // Its write was its own: a failed unit afterwards does not take it back.
    await expect(
      storage.database.run(async () => {
        await insert('c');
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(await count()).toBe(2);
  });
}

describe('unit of work on SQLite', () => {
  unitCases(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-unit-'));
    const storage = await openStorage({ sqlitePath: join(dir, 'svc.sqlite') });
    return {
      storage,
      close: async () => {
        await storage.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

describeWithPostgres('unit of work on PostgreSQL', (url) => {
  unitCases(async () => {
    const { schema, drop } = await createTestSchema(url);
    const storage = await openStorage({ databaseUrl: url, schema });
    return {
      storage,
      close: async () => {
        await storage.close();
        await drop();
      },
    };
  });
});
