import { createHash } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import type { Converted } from './content/convert.js';

export interface ContentCacheOptions {
  /** Pages kept at most. Default 32; 0 turns the cache off. */
  maxEntries?: number;
  /** Converted text kept at most, in bytes (UTF-16). Default 64 MiB; a page larger on its own is not kept. */
  maxBytes?: number;
  /** How long a page serves `start_index` continuations. Default 5 minutes. */
  ttlMs?: number;
  /** The clock the TTL is measured on, in ms (tests drive it). Default `performance.now`. */
  now?: () => number;
}

/** Where a page cached for continuations belongs: its reader, the URL (normalised) and the mode. */
interface PageKey {
  /** Whose download it is (`downloadOwner`): one reader never reads, nor replaces, another's. */
  owner: string;
  url: string;
  raw: boolean;
}

/**
 * Pages converted for the fetch tool, kept for its `start_index` continuations: each download of a key under its
 * download id (`downloadId`), so that two downloads of one page (two readers without OAuth on one process, the
 * same reader twice) are both kept, and a continuation that names its download reads exactly that one.
 */
export interface PageCache<P extends Converted> {
  /** The download `downloadId` of this key (default: the last one stored), while its TTL runs. */
  get(key: PageKey, downloadId?: string): P | undefined;
  /**
   * The id of the last download stored for this key, kept longer than the page itself (an hour, and a thousand keys
   * at most: a few bytes each), so that a continuation that must download again can say whether the page changed.
   */
  latest(key: PageKey): string | undefined;
  set(key: PageKey, downloadId: string, page: P): Promise<void>;
  clear(): void;
}

/** The shape of a download id: 22 base64url characters. */
export const DOWNLOAD_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * What names a download and tells two downloads of a page apart: the first 128 bits of a SHA-256 of the converted
 * text (prefix included), base64url. Two downloads with the same text have the same id, which is what a continuation
 * needs: either of them continues the other exactly.
 */
export function downloadId(page: Pick<Converted, 'content' | 'prefix'>): string {
  return createHash('sha256')
    .update(page.prefix, 'utf8')
    .update('\0')
    .update(page.content, 'utf8')
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

const LATEST_IDS = { max: 1000, ttlMs: 60 * 60_000 };

/**
 * On `lru-cache`: least recently used out first, bounded in pages and in the UTF-16 size of the
 * converted text (prefix included), each page expiring `ttlMs` after it was stored (reading it does
 * not extend that); a page over `maxBytes` on its own is not kept. Keyed by owner, URL, mode and download: a
 * `raw` page and its Markdown are two entries, and so are two readers' downloads of one page, and two different
 * downloads of one reader.
 * lru-cache is imported on first use, not when the server starts.
 */
export function createPageCache<P extends Converted>({
  maxEntries = 32,
  maxBytes = 64 * 1024 * 1024,
  ttlMs = 5 * 60_000,
  now,
}: ContentCacheOptions = {}): PageCache<P> {
  if (!(maxEntries >= 1 && maxBytes >= 1 && ttlMs > 0)) {
    return { get: () => undefined, latest: () => undefined, async set() {}, clear() {} };
  }
  let created: { pages: LRUCache<string, P>; latest: LRUCache<string, string> } | undefined;
  let loading: Promise<NonNullable<typeof created>> | undefined;
  const caches = () =>
    (loading ??= import('lru-cache').then(({ LRUCache }) => {
      const pages = new LRUCache<string, P>({
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
        ...(now ? { perf: { now } } : {}),
      });
      const latest = new LRUCache<string, string>({
        max: LATEST_IDS.max,
        ttl: Math.max(LATEST_IDS.ttlMs, Number.isFinite(ttlMs) ? Math.round(ttlMs) : 0),
        ttlResolution: 0,
        ...(now ? { perf: { now } } : {}),
      });
      created = { pages, latest };
      return created;
    }));
  // The owner and the URL never hold a newline (an owner is a hash or an id; a normalised URL is percent-encoded).
  const id = ({ owner, url, raw }: PageKey) => `${owner}\n${raw ? 'raw' : 'markdown'}\n${url}`;
  return {
    // Nothing was stored before the cache was created: a lookup needs no import.
    get(key, download) {
      const name = download ?? created?.latest.get(id(key));
      return name === undefined ? undefined : created?.pages.get(`${id(key)}\n${name}`);
    },
    latest: (key) => created?.latest.get(id(key)),
    async set(key, download, page) {
      const { pages, latest } = created ?? (await caches());
      pages.set(`${id(key)}\n${download}`, page);
      latest.set(id(key), download);
    },
    clear: () => {
      created?.pages.clear();
      created?.latest.clear();
    },
  };
}
