/**
 * What stays loaded per repository between calls: isomorphic-git's cache (pack indexes, parsed
 * objects) and this server's derived data (flattened trees, parsed index, …), plus the lstat helper
 * thread a large status shares its lstats with (git/statPool.ts), and the writers' queue (git/repoWrites.ts). One per server (or shared by the
 * CLI's sessions), handed to every call through the GitContext.
 */
import { createRepoWrites, type LockOptions, type RepoWrites } from './git/repoWrites.js';
import { createStatPool, type StatPool, type StatPoolOptions } from './git/statPool.js';
import type { RepoState } from './repoState.js';

export interface RepoCache {
  get(gitdir: string): { cache: object; state: RepoState };
  /** Forget everything kept for a repository (after a fetch adds packs). */
  drop(gitdir: string): void;
  /** lstat for the work trees, on two threads for long lists. */
  readonly stats: StatPool;
  /** The writers' queue per repository and the lock-file waits (never dropped with a repository's caches). */
  readonly writes: RepoWrites;
  /** Stops the lstat helper thread (it never keeps the process alive; this frees it sooner). */
  close(): Promise<void>;
}

/** Caches for at most `max` repositories, least recently used dropped first; `stats` tunes the lstat pool, `locks` the lock waits. */
export function createRepoCache(max = 16, stats: StatPoolOptions = {}, locks: LockOptions = {}): RepoCache {
  const entries = new Map<string, { cache: object; state: RepoState }>();
  const pool = createStatPool(stats);
  return {
    get(gitdir) {
      let entry = entries.get(gitdir);
      if (entry) entries.delete(gitdir);
      else entry = { cache: {}, state: {} };
      entries.set(gitdir, entry);
      while (entries.size > max) entries.delete(entries.keys().next().value as string);
      return entry;
    },
    drop(gitdir) {
      entries.delete(gitdir);
    },
    stats: pool,
    writes: createRepoWrites(locks),
    close: () => pool.close(),
  };
}
