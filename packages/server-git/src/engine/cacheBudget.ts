/**
 * The one memory budget of everything this server keeps between calls: flattened trees, tree entries,
 * the parsed index, blob contents, delta bases, parsed commits, hashed work-tree files, patches kept for
 * their further pages. All of them are entries of ONE `lru-cache` sized in bytes (`--cache-size`), so
 * they share one eviction policy: least recently used goes first, whatever kind it is and whichever
 * repository it belongs to. Sizes are estimates (what the bytes and strings held weigh, plus a fixed
 * overhead per object); an entry larger than half the budget is not kept.
 *
 * Each kind of entry is a `part` (a name and a key space); a repository's parts share its git dir as a
 * prefix, so its entries are dropped together (`drop`). Expiry (the patch cache's) reads `now`, a clock
 * tests can drive.
 */
import { LRUCache } from 'lru-cache';

/** The budget when `--cache-size` is not given. */
export const DEFAULT_CACHE_BYTES = 128 * 1024 * 1024;

/** What an object, a Map slot or a small record costs on V8's heap beyond the data it holds (an estimate). */
export const OBJECT_OVERHEAD = 64;

/** A string's weight on the heap, estimated as V8 keeps ASCII text: a byte per character, plus its header. */
export const stringBytes = (s: string): number => 16 + s.length;

export interface CachePart<V> {
  get(key: string): V | undefined;
  /** Keeps `value`, weighing `bytes`; `ttlMs` makes it expire (by the budget's clock). A value too big for the budget is not kept. */
  set(key: string, value: V, bytes: number, ttlMs?: number): void;
  delete(key: string): void;
}

/** Parts by kind: one repository's share of a budget (repoCache.ts), or a budget of its own. */
export interface CacheParts {
  part<V>(kind: string): CachePart<V>;
}

export interface CacheBudget extends CacheParts {
  /** The entries of one kind, competing with every other part's for the same bytes. */
  part<V>(name: string): CachePart<V>;
  /** Forgets the entries of every part whose name starts with `prefix`. */
  drop(prefix: string): void;
  /** The bytes the budget allows in all. */
  readonly maxBytes: number;
  /** The bytes held now (the sum of the entries' estimates). */
  readonly bytes: number;
}

export interface CacheBudgetOptions {
  /** Bytes all entries may weigh together. Default DEFAULT_CACHE_BYTES. */
  maxBytes?: number;
  /** The clock of expiring entries, in milliseconds. Default `performance.now`. */
  now?: () => number;
}

interface Held {
  value: unknown;
}

const SEP = '\u0000';

export function createCacheBudget({ maxBytes: asked = DEFAULT_CACHE_BYTES, now }: CacheBudgetOptions = {}): CacheBudget {
  // lru-cache wants positive integers; a budget under a byte keeps nothing worth keeping anyway.
  const maxBytes = Math.max(1, Math.floor(asked));
  const lru = new LRUCache<string, Held>({
    maxSize: maxBytes,
    maxEntrySize: Math.max(1, Math.floor(maxBytes / 2)),
    // ttlResolution 0: the clock is read on every look-up (an injected clock may jump).
    ttlResolution: 0,
    // Shifted by 1: lru-cache reads a start time of 0 as "none" (an injected clock starting at 0 would never expire anything).
    ...(now ? { perf: { now: () => now() + 1 } } : {}),
  });
  return {
    part<V>(name: string): CachePart<V> {
      const prefix = name + SEP;
      return {
        get: (key) => lru.get(prefix + key)?.value as V | undefined,
        set(key, value, bytes, ttlMs) {
          const size = Math.max(1, Math.ceil(bytes));
          lru.set(prefix + key, { value }, ttlMs === undefined ? { size } : { size, ttl: Math.max(1, ttlMs) });
        },
        delete: (key) => void lru.delete(prefix + key),
      };
    },
    drop(prefix) {
      for (const key of [...lru.keys()]) if (key.startsWith(prefix)) lru.delete(key);
    },
    maxBytes,
    get bytes() {
      return lru.calculatedSize;
    },
  };
}

/** Parts of a budget of their own (a reader used outside a RepoCache, as in tests). */
export function ownParts(maxBytes = DEFAULT_CACHE_BYTES): CacheParts {
  const budget = createCacheBudget({ maxBytes });
  return { part: (kind) => budget.part(kind) };
}
