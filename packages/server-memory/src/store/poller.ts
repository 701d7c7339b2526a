/**
 * Looks for other processes' changes every `pollMs` while at least one `watch()` handle is held (a
 * client subscribed to the graph resource). One check at a time: while another process holds the
 * lock, checks would otherwise pile up behind it.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private handles = 0;
  private checking = false;
  private stopped = false;

  constructor(
    private readonly pollMs: number,
    private readonly check: () => Promise<void>,
  ) {}

  /** Starts polling (if this is the first handle); the returned function releases the handle. */
  watch(): () => void {
    this.handles++;
    if (!this.timer && !this.stopped) {
      this.timer = setInterval(() => this.tick(), this.pollMs);
      this.timer.unref();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.handles--;
      if (this.handles === 0) this.clear();
    };
  }

  stop(): void {
    this.stopped = true;
    this.clear();
  }

  private tick(): void {
    if (this.checking) return;
    this.checking = true;
    this.check().finally(() => {
      this.checking = false;
    });
  }

  private clear(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
