/**
 * What this server keeps per repository between calls (beside isomorphic-git's own cache): its object
 * store and the data it derives from the repository (flattened trees, the parsed index and config,
 * parsed commits, …). One typed field per kind, each filled by the module that reads it; a field is
 * only ever replaced, never mutated into another shape. Dropped with the repository's cache entry
 * (../repoCache.ts), e.g. after a fetch adds packs.
 */
import type { BlameMemo } from './diff/blame.js';
import type { Snapshot, TreeEntries } from './diff/changes.js';
import type { GitConfig } from './git/gitConfig.js';
import type { IndexSnapshot } from './git/indexSnapshot.js';
import type { SharedObjectStore } from './git/objectStore.js';
import type { BlobCache, FileEntry } from './git/objects.js';
import type { UntrackedCache } from './git/untracked.js';
import type { HashMemo } from './git/worktreeState.js';
import type { CommitInfo } from './log/commits.js';

export interface RepoState {
  /** The repository's objects (packs and loose), shared by its calls (git/objectStore.ts). */
  objectStore?: SharedObjectStore;
  /** Parsed commits by oid (log/commits.ts). */
  commits?: Map<string, CommitInfo>;
  /** Per ancestor: which tips reach it (log/commits.ts). */
  reaches?: Map<string, Map<string, boolean>>;
  /** The work tree's listing for untracked files (git/untracked.ts). */
  untracked?: UntrackedCache;
  /** Flattened trees by commit or tree oid (git/objects.ts). */
  trees?: Map<string, Map<string, FileEntry>>;
  /** Blob contents, bounded by bytes (git/objects.ts). */
  blobs?: BlobCache;
  /** The parsed index and the stat key it was read at (git/indexSnapshot.ts). */
  index?: { key: string; snapshot: IndexSnapshot };
  /** Work-tree files' blob ids by path and stat signature (git/worktreeState.ts). */
  hashes?: HashMemo;
  /** `.git/config`, parsed, and the stat key it was read at (git/gitConfig.ts). */
  config?: { key: string; config: GitConfig };
  /** Ahead/behind counts by `<ours>:<theirs>` (git/branchState.ts). */
  aheadBehind?: Map<string, { ahead: number; behind: number }>;
  /** Loose-object folder listings by folder (diff/abbrev.ts). */
  looseNames?: Map<string, { mtime: number; names: string[] }>;
  /** A commit's or tree's root tree (diff/changes.ts). */
  rootTrees?: Map<string, string>;
  /** A tree object's entries by name (diff/changes.ts). */
  treeEntries?: Map<string, TreeEntries>;
  /** The index as a diff snapshot, for the parsed index it was made from (diff/changes.ts). */
  indexSnapshot?: { files: Map<string, FileEntry>; snap: Snapshot };
  /** What blame keeps between calls (diff/blame.ts). */
  blame?: BlameMemo;
}
