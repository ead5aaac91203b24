import type { ChangeFeed, ChangeListener, ChangeNotice } from '../ports/change-feed';

/**
 * Notices within this process only: the embedded default (one instance), and the part of every
 * other feed that delivers to this process's listeners. A listener that throws is skipped, so
 * one cache cannot keep the others from hearing of a change.
 */
export class LocalChangeFeed implements ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => undefined) {}

  async publish(notice: ChangeNotice): Promise<void> {
    this.deliver(notice);
  }

  /** `publish`, synchronously: every listener has been called when it returns. */
  deliver(notice: ChangeNotice): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(notice);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  subscribe(listener: ChangeListener): () => void {
    // Wrapped, so subscribing one function twice gives two independent subscriptions.
    const entry: ChangeListener = (notice) => listener(notice);
    this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
