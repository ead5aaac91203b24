/**
 * The loop behind the outbox and webhook workers: `round` runs every `intervalMs`, at once after
 * `wake()` (something was just queued), and again straight away when a `wake()` arrived during a
 * round (whose claim may have missed the new item). One round at a time; concurrent `runOnce()`
 * calls share the round in flight. The timer never keeps a process alive; `stop()` waits for the
 * round in flight. A failed round is reported to `onError` and the next one tries again.
 */
export class RoundLoop<T> {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<T> | null = null;
  private started = false;
  private wokenWhileRunning = false;

  constructor(
    private readonly round: () => Promise<T>,
    private readonly options: { intervalMs: number; onError: (error: unknown) => void },
  ) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /** Asks for a round soon; a no-op when stopped. */
  wake(): void {
    if (!this.started) return;
    if (this.running) this.wokenWhileRunning = true;
    else this.schedule(0);
  }

  /** Runs a round now, or joins the one in flight. */
  runOnce(): Promise<T> {
    this.running ??= this.round().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Stops scheduling and waits for the round in flight. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    const timer = setTimeout(() => void this.tick(), delayMs);
    (timer as { unref?: () => void }).unref?.();
    this.timer = timer;
  }

  private async tick(): Promise<void> {
    this.timer = null;
    try {
      await this.runOnce();
    } catch (error) {
      this.options.onError(error);
    }
    const again = this.wokenWhileRunning;
    this.wokenWhileRunning = false;
    if (this.started) this.schedule(again ? 0 : this.options.intervalMs);
  }
}
