/**
 * What this server keeps per repository between calls (beside isomorphic-git's own cache): its object
 * store and the small data it derives from the repository (the parsed config, ahead/behind counts, blame's memos;
 * what grows with the repository — trees, the index, blobs, commits — is held in its share of the memory budget,
 * `repo.held`, ../repoCache.ts). One typed field per kind, each filled by the module that reads it; a field is
 * only ever replaced, never mutated into another shape. Dropped with the repository's cache entry
 * (../repoCache.ts), e.g. after a fetch adds packs.
 */
import type { BlameMemo } from './diff/blame.js';
import type { GitConfig } from './git/gitConfig.js';
import type { SharedObjectStore } from './git/objectStore.js';

export interface RepoState {
  /** The repository's objects (packs and loose), shared by its calls (git/objectStore.ts). */
  objectStore?: SharedObjectStore;
  /** `.git/config`, parsed, and the stat key it was read at (git/gitConfig.ts). */
  config?: { key: string; config: GitConfig };
  /** Ahead/behind counts by `<ours>:<theirs>` (git/branchState.ts). */
  aheadBehind?: Map<string, { ahead: number; behind: number }>;
  /** Loose-object folder listings by folder (diff/abbrev.ts). */
  looseNames?: Map<string, { mtime: number; names: string[] }>;
  /** What blame keeps between calls (diff/blame.ts). */
  blame?: BlameMemo;
}
