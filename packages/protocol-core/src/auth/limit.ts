/**
 * A bound on work sent to the authorization server: at most `concurrency` tasks run at once, at most
 * `maxWaiting` more wait their turn (first come, first served), and a task beyond that is refused at once
 * with an `AuthServerError` (503 to the client), so a flood of tokens neither opens a connection each nor
 * queues without end.
 */
import { AuthServerError } from './http.js';

export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly running: number;
  /** Tasks waiting to run. */
  readonly waiting: number;
}

export function createLimiter({ concurrency, maxWaiting, what }: { concurrency: number; maxWaiting: number; what: string }): Limiter {
  let running = 0;
  const queue: Array<() => void> = [];

  function release(): void {
    const next = queue.shift();
    if (next) next();
    else running--;
  }

  return {
    async run(task) {
      if (running >= concurrency) {
        if (queue.length >= maxWaiting)
          throw new AuthServerError(`${concurrency} ${what} are running and ${maxWaiting} waiting; refusing one more`);
        // The slot is handed over by `release`, so `running` stays counted for the waiter.
        await new Promise<void>((resolve) => queue.push(resolve));
      } else {
        running++;
      }
      try {
        return await task();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
  };
}
