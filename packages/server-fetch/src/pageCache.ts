import type { LRUCache } from 'lru-cache';
import type { Converted } from './content/convert.js';

export interface ContentCacheOptions {
  /** Pages kept at most. Default 32; 0 turns the cache off. */
  maxEntries?: number;
  /** Converted text kept at most, in bytes (UTF-16). Default 64 MiB; a page larger on its own is not kept. */
  maxBytes?: number;
  /** How long a page serves `start_index` continuations. Default 5 minutes. */
  ttlMs?: number;
}

/** Pages converted for the fetch tool, kept for its `start_index` continuations. */
export interface PageCache<P extends Converted> {
  /** The page last converted for this URL (normalised) and mode, while its TTL runs. */
  get(url: string, raw: boolean): P | undefined;
  set(url: string, raw: boolean, page: P): Promise<void>;
  clear(): void;
}

/**
 * On `lru-cache`: least recently used out first, bounded in pages and in the UTF-16 size of the
 * converted text (prefix included), each page expiring `ttlMs` after it was stored (reading it does
 * not extend that); a page over `maxBytes` on its own is not kept. Keyed by URL and mode: a `raw`
 * page and its Markdown are two entries. lru-cache is imported on first use, not when the server starts.
 */
export function createPageCache<P extends Converted>({
  maxEntries = 32,
  maxBytes = 64 * 1024 * 1024,
  ttlMs = 5 * 60_000,
}: ContentCacheOptions = {}): PageCache<P> {
  if (!(maxEntries >= 1 && maxBytes >= 1 && ttlMs > 0)) return { get: () => undefined, async set() {}, clear() {} };
  let created: LRUCache<string, P> | undefined;
  let loading: Promise<LRUCache<string, P>> | undefined;
  const pages = () =>
    (loading ??= import('lru-cache').then(({ LRUCache }) => {
      created = new LRUCache<string, P>({
        // lru-cache allocates its tables for `max` up front: an unbounded count is left to the size bound.
        ...(Number.isFinite(maxEntries) ? { max: Math.floor(maxEntries) } : {}),
        maxSize: Number.isFinite(maxBytes) ? Math.floor(maxBytes) : Number.MAX_SAFE_INTEGER,
        // Sizes must be positive integers: an empty page counts one byte.
        sizeCalculation: (page) => Math.max(1, (page.content.length + page.prefix.length) * 2),
        // lru-cache's TTL is a whole number of ms; 0 (for an infinite one) means none.
        ttl: Number.isFinite(ttlMs) ? Math.max(1, Math.round(ttlMs)) : 0,
        // Read the clock on every lookup: by default lru-cache keeps it for 1 ms with a new timer each
        // time, an event-loop wake-up per continuation that made them measurably slower over stdio.
        ttlResolution: 0,
      });
      return created;
    }));
  const key = (url: string, raw: boolean) => `${raw ? 'raw' : 'markdown'} ${url}`;
  return {
    // Nothing was stored before the cache was created: a lookup needs no import.
    get: (url, raw) => created?.get(key(url, raw)),
    async set(url, raw, page) {
      (created ?? (await pages())).set(key(url, raw), page);
    },
    clear: () => created?.clear(),
  };
}
