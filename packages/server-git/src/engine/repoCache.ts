/**
 * What stays loaded per repository between calls: isomorphic-git's cache (pack indexes, parsed
 * objects), the repository's small state (its object store's readers, config, …) in `state` (./repoState.ts), and its
 * share of the memory budget (./cacheBudget.ts) for the derived data that grows with the repository
 * (flattened trees, parsed index, blobs, delta bases, parsed commits), plus the lstat helper thread a
 * large status shares its lstats with (git/statPool.ts), and the writers' queue (git/repoWrites.ts). One
 * per server (or shared by the CLI's sessions), handed to every call through the GitContext.
 */
import { LRUCache } from 'lru-cache';
import { type CacheBudget, type CachePart, type CacheParts, createCacheBudget } from './cacheBudget.js';
import { createRepoWrites, type LockOptions, type RepoWrites } from './git/repoWrites.js';
import { createStatPool, type StatPool, type StatPoolOptions } from './git/statPool.js';
import type { RepoState } from './repoState.js';

/** One repository's entries of the budget, by kind (`trees`, `blobs`, …). */
export type RepoHeld = CacheParts;

interface RepoCacheEntry {
  cache: object;
  state: RepoState;
  held: RepoHeld;
}

export interface RepoCache {
  get(gitdir: string): RepoCacheEntry;
  /** Forget everything kept for a repository (after a fetch adds packs). */
  drop(gitdir: string): void;
  /** The memory budget every repository's derived data (and the patch caches) share. */
  readonly budget: CacheBudget;
  /** lstat for the work trees, on two threads for long lists. */
  readonly stats: StatPool;
  /** The writers' queue per repository and the lock-file waits (never dropped with a repository's caches). */
  readonly writes: RepoWrites;
  /** Stops the lstat helper thread (it never keeps the process alive; this frees it sooner). */
  close(): Promise<void>;
}

const SEP = '\u0000';

/**
 * Caches for at most `max` repositories, least recently used dropped first (with its entries of the
 * budget); `stats` tunes the lstat pool, `locks` the lock waits, `budget` bounds the bytes kept.
 */
export function createRepoCache(
  max = 16,
  stats: StatPoolOptions = {},
  locks: LockOptions = {},
  budget: CacheBudget = createCacheBudget(),
): RepoCache {
  const prefix = (gitdir: string) => `repo${SEP}${gitdir}${SEP}`;
  const entries = new LRUCache<string, RepoCacheEntry>({
    max,
    dispose: (_entry, gitdir) => budget.drop(prefix(gitdir)),
  });
  const pool = createStatPool(stats);
  return {
    get(gitdir) {
      let entry = entries.get(gitdir);
      if (!entry) {
        const parts = new Map<string, CachePart<unknown>>();
        const held: RepoHeld = {
          part<V>(kind: string) {
            let part = parts.get(kind);
            if (!part) {
              part = budget.part<unknown>(prefix(gitdir) + kind);
              parts.set(kind, part);
            }
            return part as CachePart<V>;
          },
        };
        entry = { cache: {}, state: {}, held };
        entries.set(gitdir, entry);
      }
      return entry;
    },
    drop(gitdir) {
      if (!entries.delete(gitdir)) budget.drop(prefix(gitdir));
    },
    budget,
    stats: pool,
    writes: createRepoWrites(locks),
    close: () => pool.close(),
  };
}
