/** A timer as a `Scheduler` made it: only its own `clearTimeout`/`clearInterval` take it back. */
export type TimerId = unknown;

/**
 * The timers the simulations run on: simulated log messages and resource updates, progress steps, task
 * stages, polls, the first roots request. The default is `realTimers`; a test passes a clock it advances
 * (`EverythingOptions.scheduler`), so nothing of it waits on the wall clock.
 */
export interface Scheduler {
  setTimeout(callback: () => void, ms: number): TimerId;
  clearTimeout(timer: TimerId): void;
  setInterval(callback: () => void, ms: number): TimerId;
  clearInterval(timer: TimerId): void;
}

/** Node's timers, unref'd: a simulation never keeps the process alive. Looked up at call time. */
export const realTimers: Scheduler = {
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout | undefined),
  setInterval: (callback, ms) => setInterval(callback, ms).unref(),
  clearInterval: (timer) => clearInterval(timer as NodeJS.Timeout | undefined),
};

/** Resolves after `ms` on `scheduler`, or rejects with the signal's reason when it aborts first. */
export function sleep(scheduler: Scheduler, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      scheduler.clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = scheduler.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
