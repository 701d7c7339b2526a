export interface TtlCacheOptions<V> {
  maxEntries: number;
  /** Total size bound, in whatever unit `sizeOf` returns. */
  maxSize: number;
  ttlMs: number;
  sizeOf: (value: V) => number;
  /** Clock, injectable for tests. */
  now?: () => number;
}

export interface TtlCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
  clear(): void;
  readonly size: number;
}

/**
 * A small LRU cache bounded in entries and total size, whose entries expire after `ttlMs`.
 * A value larger than `maxSize` on its own is not cached.
 */
export function createTtlCache<V>({ maxEntries, maxSize, ttlMs, sizeOf, now = Date.now }: TtlCacheOptions<V>): TtlCache<V> {
  const entries = new Map<string, { value: V; size: number; expires: number }>();
  let total = 0;

  function drop(key: string) {
    const entry = entries.get(key);
    if (!entry) return;
    total -= entry.size;
    entries.delete(key);
  }

  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expires <= now()) {
        drop(key);
        return undefined;
      }
      // Refresh its place in the LRU order.
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value) {
      drop(key);
      const size = sizeOf(value);
      if (size > maxSize || maxEntries <= 0) return;
      entries.set(key, { value, size, expires: now() + ttlMs });
      total += size;
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries && total <= maxSize) break;
        drop(oldest);
      }
    },
    delete: drop,
    clear() {
      entries.clear();
      total = 0;
    },
    get size() {
      return entries.size;
    },
  };
}
