/**
 * When the journal is folded into the snapshot (`compaction.ts`): `later`, a while after the last
 * write (each write pushes it back); `soon`, right after the writes just acknowledged (their answers
 * go out first), when the journal has grown large. `stop` cancels what is pending for good (closing
 * folds the journal itself).
 */
export class CompactionScheduler {
  private timer: NodeJS.Timeout | undefined;
  private soonPending = false;
  private stopped = false;

  constructor(
    private readonly delayMs: number,
    private readonly run: () => void,
  ) {}

  later(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), this.delayMs);
    this.timer.unref();
  }

  soon(): void {
    if (this.stopped || this.soonPending) return;
    this.soonPending = true;
    clearTimeout(this.timer);
    setImmediate(() => {
      this.soonPending = false;
      this.fire();
    });
  }

  /** A compaction is running now: the one waiting on the timer is not needed. */
  cancel(): void {
    clearTimeout(this.timer);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private fire(): void {
    if (!this.stopped) this.run();
  }
}
