/**
 * The patches computed for a diff or `git_show`, kept for a short while so that its further pages do
 * not compute it again (a 40 MB patch takes seconds and hundreds of MB to build; 39 pages of it took
 * 6 minutes). One per server instance (GitContext), bounded in entries and bytes, entries expire after
 * `ttlMs`. Keyed by the arguments and the repository state (for diffs, a hash of both sides' files;
 * for `git_show`, the commit), and found only by a cursor whose fingerprint is the cached patch's; a
 * call without a cursor always computes afresh.
 */
import type { FilePatch } from './patch.js';

/** A file of a patch as the diff tools' `files` list it (tools/diffSchemas.ts `fileSchema`). */
export type FileData = Pick<FilePatch, 'path' | 'old_path' | 'status' | 'binary' | 'additions' | 'deletions' | 'hunks'>;

export interface CachedPatch {
  /** The whole patch as a byte string. */
  whole: string;
  /** Where each file's patch starts in `whole`. */
  starts: number[];
  files: FileData[];
}

export interface PatchCache {
  get(key: string, fingerprint: string): CachedPatch | undefined;
  set(key: string, fingerprint: string, patch: CachedPatch): void;
}

export interface PatchCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  /** Most bytes of patch text kept in all (a larger patch is not kept). */
  maxBytes?: number;
  now?: () => number;
}

export function createPatchCache({
  ttlMs = 120_000,
  maxEntries = 4,
  maxBytes = 256 * 1024 * 1024,
  now = Date.now,
}: PatchCacheOptions = {}): PatchCache {
  const entries = new Map<string, { fingerprint: string; patch: CachedPatch; expires: number }>();
  const size = () => [...entries.values()].reduce((n, e) => n + e.patch.whole.length, 0);
  const prune = () => {
    const t = now();
    for (const [key, e] of entries) if (e.expires <= t) entries.delete(key);
  };
  return {
    get(key, fingerprint) {
      prune();
      const e = entries.get(key);
      return e && e.fingerprint === fingerprint ? e.patch : undefined;
    },
    set(key, fingerprint, patch) {
      if (patch.whole.length > maxBytes) return;
      prune();
      entries.delete(key);
      entries.set(key, { fingerprint, patch, expires: now() + ttlMs });
      while (entries.size > maxEntries || size() > maxBytes) entries.delete(entries.keys().next().value as string);
    },
  };
}
