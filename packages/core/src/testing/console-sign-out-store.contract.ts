import type { ConsoleSignOutStore } from '../ports/console-sign-out-store';
import { at, newId } from './storage-fixture';

export type ConsoleSignOutStoreFactory = () => Promise<{ consoleSignOuts: ConsoleSignOutStore; close(): Promise<void> }>;

const T0 = at('2026-01-01T00:00:00.000Z');
const T1 = at('2026-01-01T08:00:00.000Z');

/** Contract every ConsoleSignOutStore passes: remembers sign-outs until their expiry, idempotent, purged in batches. */
export function consoleSignOutStoreContract(label: string, factory: ConsoleSignOutStoreFactory): void {
  describe(`ConsoleSignOutStore contract: ${label}`, () => {
    let subject: Awaited<ReturnType<ConsoleSignOutStoreFactory>>;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(async () => {
      await subject?.close();
    });
    const store = () => subject.consoleSignOuts;

    it('knows the sessions it was told of, and no other', async () => {
      const [ended, other] = [`s-${newId()}`, `s-${newId()}`];
      expect(await store().has(ended)).toBe(false);
      await store().add(ended, T1);
      // Signing out twice (two tabs) is not an error.
      await store().add(ended, T1);
      expect(await store().has(ended)).toBe(true);
      expect(await store().has(other)).toBe(false);
    });

    it('purges records once their session would have expired, at most `limit` at a time', async () => {
      const early = [`s-${newId()}`, `s-${newId()}`, `s-${newId()}`];
      const late = `s-${newId()}`;
      for (const id of early) await store().add(id, T0);
      await store().add(late, T1);
      expect(await store().deleteExpired(new Date(T0.getTime() - 1), 10)).toBe(0);
      expect(await store().deleteExpired(T0, 2)).toBe(2);
      expect(await store().deleteExpired(T0, 10)).toBe(1);
      for (const id of early) expect(await store().has(id)).toBe(false);
      expect(await store().has(late)).toBe(true);
    });
  });
}
