import type { ChangeFeed, ChangeNotice } from '../ports/change-feed';

/**
 * Contract every ChangeFeed passes. `open` answers a new feed; for a feed that reaches other
 * processes (`shared`), feeds opened by one `open` reach each other as two instances would.
 * Delivery to another instance takes real time, so those cases wait (at most a second, the
 * bound docs/decisions.md promises).
 */
export function changeFeedContract(label: string, options: { open: () => Promise<ChangeFeed>; shared: boolean }): void {
  describe(`ChangeFeed contract: ${label}`, () => {
    const opened: ChangeFeed[] = [];
    const open = async () => {
      const feed = await options.open();
      opened.push(feed);
      return feed;
    };
    afterAll(async () => {
      await Promise.all(opened.map((feed) => feed.close()));
    });
    const record = (feed: ChangeFeed) => {
      const heard: ChangeNotice[] = [];
      feed.subscribe((notice) => heard.push(notice));
      return heard;
    };
    const projectId = () => globalThis.crypto.randomUUID();

    it('delivers a notice to its own listeners before publish resolves, synchronously', async () => {
      const feed = await open();
      const heard = record(feed);
      const notice: ChangeNotice = { kind: 'api-keys', projectId: projectId() };
      const publishing = feed.publish(notice);
      expect(heard).toEqual([notice]);
      await publishing;
      expect(heard).toEqual([notice]);
    });

    it('keeps delivering to the other listeners when one throws, and stops after unsubscribe', async () => {
      const feed = await open();
      feed.subscribe(() => {
        throw new Error('a broken cache');
      });
      const heard: ChangeNotice[] = [];
      const unsubscribe = feed.subscribe((notice) => heard.push(notice));
      const first: ChangeNotice = { kind: 'project', projectId: projectId() };
      await feed.publish(first);
      unsubscribe();
      await feed.publish({ kind: 'project', projectId: projectId() });
      expect(heard).toEqual([first]);
    });

    if (!options.shared) return;

    it('delivers to another instance within a second, once, and never back to the sender', async () => {
      const [a, b] = [await open(), await open()];
      const onA = record(a);
      const onB = record(b);
      const notice: ChangeNotice = { kind: 'signing-keys', projectId: projectId() };
      await a.publish(notice);
      const deadline = Date.now() + 1000;
      while (onB.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      // A moment more, for a duplicate or an echo to show up if the feed sent one.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(onB).toEqual([notice]);
      expect(onA).toEqual([notice]);
    });
  });
}
