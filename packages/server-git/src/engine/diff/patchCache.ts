/**
 * The patches computed for a diff or `git_show`, kept for a short while so that its further pages do
 * not compute it again (a 40 MB patch takes seconds and hundreds of MB to build; 39 pages of it took
 * 6 minutes). One per server instance (GitContext), kept within the memory budget every cache of the
 * process shares (--cache-size), entries expire after `ttlMs`. Keyed by the arguments and the repository state (for diffs, a hash of both sides' files;
 * for `git_show`, the commit), and found only by a cursor whose fingerprint is the cached patch's; a
 * call without a cursor always computes afresh.
 */
import { type CacheParts, OBJECT_OVERHEAD, stringBytes } from '../cacheBudget.js';
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
  /** How long a patch is kept after it was computed (by the budget's clock). Default 2 minutes. */
  ttlMs?: number;
}

let servers = 0;

/** What a kept patch weighs (an estimate): its text, and each file's record with its hunks' text. */
function patchBytes(patch: CachedPatch): number {
  let n = stringBytes(patch.whole) + patch.starts.length * 8 + OBJECT_OVERHEAD;
  for (const f of patch.files) {
    n += 2 * OBJECT_OVERHEAD + stringBytes(f.path) + (f.old_path ? stringBytes(f.old_path) : 0);
    n += f.hunks.length * (2 * OBJECT_OVERHEAD + 32) + f.hunks.reduce((m, h) => m + stringBytes(h.header), 0);
  }
  return n;
}

/**
 * A server's patch cache, its entries in `budget` (the memory budget shared with the repositories' caches,
 * ../cacheBudget.ts), apart from every other server's.
 */
export function createPatchCache(budget: CacheParts, { ttlMs = 120_000 }: PatchCacheOptions = {}): PatchCache {
  const entries = budget.part<{ fingerprint: string; patch: CachedPatch }>(`patches:${++servers}`);
  return {
    get(key, fingerprint) {
      const e = entries.get(key);
      return e && e.fingerprint === fingerprint ? e.patch : undefined;
    },
    set(key, fingerprint, patch) {
      entries.set(key, { fingerprint, patch }, patchBytes(patch), ttlMs);
    },
  };
}
