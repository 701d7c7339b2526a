/**
 * Who may change a repository, and when, inside this process: every writer of the index or of a ref
 * runs after the writers before it on the same git directory (a promise queue per gitdir), so calls
 * of one server never wait on each other's lock files; across processes the lock files (lockFile.ts)
 * decide. One per RepoCache, so the sessions that share a cache share the queue.
 */
import type { LockWait } from './lockFile.js';

export interface LockOptions {
  /** How long a call waits for `index.lock` held by another process (default 2000 ms). */
  indexTimeoutMs?: number;
  /** How long a call waits for a ref's lock (default 1000 ms, git's core.filesRefLockTimeout is 100 ms). */
  refTimeoutMs?: number;
  /** The clock the waits run on (tests inject their own). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface RepoWrites {
  /** Runs `fn` once every earlier writer on `gitdir` in this process has settled. */
  exclusive<T>(gitdir: string, fn: () => Promise<T>): Promise<T>;
  /** The wait for `index.lock`. */
  readonly index: LockWait;
  /** The wait for a ref's lock. */
  readonly ref: LockWait;
}

export function createRepoWrites(options: LockOptions = {}): RepoWrites {
  const tails = new Map<string, Promise<unknown>>();
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return {
    exclusive<T>(gitdir: string, fn: () => Promise<T>): Promise<T> {
      const before = tails.get(gitdir) ?? Promise.resolve();
      const run = before.then(fn, fn);
      const tail = run.then(
        () => undefined,
        () => undefined,
      );
      tails.set(gitdir, tail);
      void tail.then(() => {
        if (tails.get(gitdir) === tail) tails.delete(gitdir);
      });
      return run;
    },
    index: { timeoutMs: options.indexTimeoutMs ?? 2000, now, sleep },
    ref: { timeoutMs: options.refTimeoutMs ?? 1000, now, sleep },
  };
}
