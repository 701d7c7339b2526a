/**
 * The time a wait for the lock runs on (`exclusive.ts`, `lock.ts`): the deadline of a call waiting for it, the
 * back-off between tries, and the notice that a call has been waiting a while. Injectable (`FileStoreOptions`'
 * `lockClock`), so that a test drives a wait instead of sitting it out. Holding the lock across a burst
 * (`lingerMs`, `maxHoldMs`) is not a wait: it stays on `performance.now()` and Node's timers.
 */
export interface LockClock {
  /** Epoch milliseconds: what a wait's deadline is counted in. */
  now(): number;
  /** Resolves after `ms` (between two tries of a lock another process holds). */
  sleep(ms: number): Promise<void>;
  /** Calls `callback` after `ms` unless cleared first; does not keep the process alive. */
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock: `Date.now()` and Node's timers, looked up at each call (a test's fake timers apply). */
export const systemLockClock: LockClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
};
