/**
 * Sections that hold the cross-process lock (`lock.ts`), one at a time in this process. Each section
 * is synchronous, so nothing else in this process runs while it works with the lock held. A call that
 * cannot get the lock within the time-out fails with a `ToolError` saying who holds it and what to do.
 *
 * A burst of sections takes the lock once: after a section the lock is kept for `lingerMs` in case
 * another one comes (the next write of a client calling one at a time arrives a round trip later),
 * and released when none has come by then, or once it has been held `maxHoldMs` in all, so that
 * another process waiting for it gets its turn. Taking and releasing the lock are a `link`, an
 * `unlink` and a `utimensat`: metadata that every write's `fdatasync` would otherwise commit too. The
 * release after the last section of a burst runs on a timer, after that section's answer went out.
 *
 * What a hold changes for other processes: a writer waits up to `lingerMs` (or `maxHoldMs` behind a
 * busy one) more for the lock; readers never wait for it. The lock's age (its mtime, set when it is
 * taken) never reaches the stale limit while it is held (`maxHoldMs` is a quarter of it at most), so
 * nobody takes it over as stale; a process that exits holding it releases it on `exit`, and one that
 * is killed leaves a lock whose owner is gone, taken over at once as after a crash mid-write.
 */
import { type Logger, ToolError } from '@mcpkit/protocol-core';
import { FileLock, LockTimeoutError, lockTimeoutText } from './lock.js';
import { type LockClock, systemLockClock } from './lockClock.js';

export interface ExclusiveOptions {
  staleMs: number;
  timeoutMs: number;
  logger: Logger;
  /** Keep the lock this long after a section for the next one (0: release after every section). Default 10 ms. */
  lingerMs?: number;
  /** Release a lock kept across sections once it has been held this long (at most a quarter of `staleMs`). Default 100 ms. */
  maxHoldMs?: number;
  /** What a wait for the lock runs on: its deadline, the back-off, the notice after 1 s. Default `systemLockClock`. */
  clock?: LockClock;
}

/** A call still waiting for the lock after this long says so in the log (info), naming who holds it. */
const WAIT_NOTICE_MS = 1000;

/** The locks this process holds between sections: released synchronously if the process exits meanwhile. */
const heldAtExit = new Set<() => void>();
let exitHook = false;

function releaseAtExit(release: () => void): void {
  heldAtExit.add(release);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const r of heldAtExit) r();
  });
}

export class Exclusive {
  private readonly lock: FileLock;
  /** The sections queued in this process, run in order. */
  private chain: Promise<unknown> = Promise.resolve();
  /** When the lock was taken (`performance.now()`), while this process holds it; null when it is free. */
  private heldSince: number | null = null;
  private lingering: NodeJS.Timeout | undefined;
  private readonly lingerMs: number;
  private readonly maxHoldMs: number;
  private readonly clock: LockClock;
  private readonly releaseNow = () => this.release();

  constructor(
    path: string,
    private readonly options: ExclusiveOptions,
  ) {
    this.clock = options.clock ?? systemLockClock;
    this.lock = new FileLock(path, { staleMs: options.staleMs, timeoutMs: options.timeoutMs, clock: this.clock });
    this.lingerMs = Math.max(0, options.lingerMs ?? 10);
    this.maxHoldMs = Math.min(options.maxHoldMs ?? 100, options.staleMs / 4);
  }

  get path(): string {
    return this.lock.path;
  }

  /** Who holds the lock now, for messages (`nobody` when it is free). */
  holder(): string {
    return this.lock.holder();
  }

  /** Runs `fn` after the sections queued before it, with the lock held; waits for the lock up to the time-out. */
  run<T>(fn: () => T): Promise<T> {
    // Counted from the call, not from its turn: calls queued behind a stuck lock all give up in time.
    const deadline = this.clock.now() + this.options.timeoutMs;
    const run = this.chain.then(async () => {
      if (!this.tryTake()) await this.waitForLock(deadline);
      return this.section(fn);
    });
    this.chain = run.catch(() => {});
    return run;
  }

  /** Runs `fn` with the lock if it is free right now, or ours (nothing else may be queued); returns whether it ran. */
  runIfFree(fn: () => void): boolean {
    if (!this.tryTake()) return false;
    this.section(fn);
    return true;
  }

  /** Releases the lock's files for good (after the last section). */
  dispose(): void {
    this.release();
    this.lock.dispose();
  }

  /** Runs `fn` with the lock held, then keeps it for the next section or lets it go. */
  private section<T>(fn: () => T): T {
    try {
      return fn();
    } finally {
      this.afterSection();
    }
  }

  /** Takes the lock unless this process holds it still; false when another process has it. */
  private tryTake(): boolean {
    clearTimeout(this.lingering);
    if (this.heldSince !== null) {
      if (this.lock.stillHeld()) return true;
      // Taken over or replaced meanwhile (by hand, or as stale by a clock that jumped): take it like anyone.
      this.forget();
    }
    if (!this.lock.tryAcquire()) return false;
    this.taken();
    return true;
  }

  private taken(): void {
    this.heldSince = performance.now();
    releaseAtExit(this.releaseNow);
  }

  private afterSection(): void {
    if (this.heldSince === null) return;
    const left = this.heldSince + this.maxHoldMs - performance.now();
    if (this.lingerMs === 0 || left <= 0) {
      this.release();
      return;
    }
    this.lingering = setTimeout(this.releaseNow, Math.min(this.lingerMs, left));
    this.lingering.unref();
  }

  private release(): void {
    if (this.forget()) this.lock.release();
  }

  /** Stops counting the lock as held (without touching its file); true when it was. */
  private forget(): boolean {
    clearTimeout(this.lingering);
    if (this.heldSince === null) return false;
    this.heldSince = null;
    heldAtExit.delete(this.releaseNow);
    return true;
  }

  private async waitForLock(deadline: number): Promise<void> {
    const { logger, timeoutMs } = this.options;
    const { clock } = this;
    const slow = clock.setTimeout(() => logger.info(`waiting for ${this.lock.path}, held by ${this.lock.holder()}`), WAIT_NOTICE_MS);
    try {
      await this.lock.acquire(deadline);
      this.taken();
    } catch (error) {
      if (!(error instanceof LockTimeoutError)) throw error;
      logger.error(`${error.message}; gave up`);
      throw new ToolError(lockTimeoutText(error, timeoutMs));
    } finally {
      clock.clearTimeout(slow);
    }
  }
}
