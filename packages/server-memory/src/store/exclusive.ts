/**
 * Sections that hold the cross-process lock (`lock.ts`), one at a time in this process. Each section
 * is synchronous, so the lock is taken, used and released without this process doing anything else
 * meanwhile. A call that cannot get the lock within the time-out fails with a `ToolError` saying who
 * holds it and what to do.
 */
import { type Logger, ToolError } from '@mcpkit/protocol-core';
import { FileLock, LockTimeoutError, lockTimeoutText } from './lock.js';

export interface ExclusiveOptions {
  staleMs: number;
  timeoutMs: number;
  logger: Logger;
}

export class Exclusive {
  private readonly lock: FileLock;
  /** The sections queued in this process, run in order. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    path: string,
    private readonly options: ExclusiveOptions,
  ) {
    this.lock = new FileLock(path, { staleMs: options.staleMs, timeoutMs: options.timeoutMs });
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
    const deadline = Date.now() + this.options.timeoutMs;
    const run = this.chain.then(async () => {
      if (!this.lock.tryAcquire()) await this.waitForLock(deadline);
      try {
        return fn();
      } finally {
        this.lock.release();
      }
    });
    this.chain = run.catch(() => {});
    return run;
  }

  /** Runs `fn` with the lock if it is free right now (nothing else may be queued); returns whether it ran. */
  runIfFree(fn: () => void): boolean {
    if (!this.lock.tryAcquire()) return false;
    try {
      fn();
    } finally {
      this.lock.release();
    }
    return true;
  }

  /** Releases the lock's files for good (after the last section). */
  dispose(): void {
    this.lock.dispose();
  }

  private async waitForLock(deadline: number): Promise<void> {
    const { logger, timeoutMs } = this.options;
    const slow = setTimeout(() => logger.info(`waiting for ${this.lock.path}, held by ${this.lock.holder()}`), 1000);
    slow.unref();
    try {
      await this.lock.acquire(deadline);
    } catch (error) {
      if (!(error instanceof LockTimeoutError)) throw error;
      logger.error(`${error.message}; gave up`);
      throw new ToolError(lockTimeoutText(error, timeoutMs));
    } finally {
      clearTimeout(slow);
    }
  }
}
