/**
 * The work tree against the index, as git status compares them, fast enough for large repositories:
 * an entry whose lstat data (mtime, ctime, size, inode, mode) matches the index is unchanged, and
 * content is hashed only when the stat data differs or the entry is "racily clean" (modified in the
 * same instant the index was written). Untracked files come from the cached walk (untracked.ts).
 * Work-tree files are looked at through the call's WorkTree (workTree.ts): nothing behind a
 * symlinked folder is ever read, as in git.
 *
 * Not handled: clean/smudge filters and end-of-line conversion (content is hashed as stored), submodule
 * state (a gitlink is always unchanged), fsmonitor and the untracked cache.
 */
import { type CachePart, OBJECT_OVERHEAD, stringBytes } from '../cacheBudget.js';
import type { Repo } from '../repo.js';
import { configBool, repoConfig } from './gitConfig.js';
import type { IndexEntry } from './indexFile.js';
import { loadIndex } from './indexSnapshot.js';
import { type FileEntry, hashBlob } from './objects.js';
import { assertSafePath, comparePaths } from './paths.js';
import { FIELDS, MISSING, type StatLike, statAt } from './statPool.js';
import { walkUntrackedCached } from './untracked.js';
import { isVanished } from './workFile.js';

export interface WorktreeState {
  /** Tracked paths whose work-tree content differs from the index: the work-tree blob, or null when deleted. */
  changed: Map<string, FileEntry | null>;
  /** Untracked, not ignored files, sorted (git status -uall order); a nested repository shows as `dir/`. */
  untracked: string[];
}

export interface WorktreeOptions {
  /** List untracked files (default true). */
  untracked?: boolean;
  /** The user's global ignore file (core.excludesFile), when the caller knows it. */
  excludesFile?: string | null;
}

/** The mode git records for a work-tree file, or null for something it does not track (a directory, a fifo). */
export function worktreeMode(st: StatLike, fileMode = true, indexMode?: number): number | null {
  return modeOf(st.mode, fileMode, indexMode);
}

function modeOf(stMode: number, fileMode: boolean, indexMode?: number): number | null {
  const type = stMode & 0o170000;
  if (type === 0o120000) return 0o120000;
  if (type !== 0o100000) return null;
  if (!fileMode) return indexMode === 0o100755 ? 0o100755 : 0o100644;
  return stMode & 0o100 ? 0o100755 : 0o100644;
}

/**
 * Whether the index entry's stat data still describes the lstat at `o` in `v` (the FIELDS numbers of
 * statPool.ts: mode, size, mtimeMs, ctimeMs, ino): git's ie_match_stat, without uid/gid/dev.
 */
function statMatches(e: IndexEntry, v: Float64Array, o: number): boolean {
  if (e.size !== v[o + 1]! % 0x1_0000_0000) return false;
  const mtimeMs = v[o + 2]!;
  const ctimeMs = v[o + 3]!;
  if (e.mtimeSeconds !== Math.floor(mtimeMs / 1000)) return false;
  if (e.ctimeSeconds !== Math.floor(ctimeMs / 1000)) return false;
  const ino = v[o + 4]!;
  if (e.ino !== 0 && e.ino !== ino % 0x1_0000_0000) return false;
  // Sub-second parts: a double holds ms with ~0.2 µs precision, and isomorphic-git rounds; allow 2 µs.
  const mtimeNs = (mtimeMs % 1000) * 1e6;
  const ctimeNs = (ctimeMs % 1000) * 1e6;
  return Math.abs(mtimeNs - e.mtimeNanoseconds) < 2000 && Math.abs(ctimeNs - e.ctimeNanoseconds) < 2000;
}

/**
 * Reads a work-tree file as git stores it: a symlink's target text, else the bytes (never through a
 * symlinked folder). A file that vanished since the status looked at it (or was swapped for a link)
 * reads as empty, as git's diff_populate_filespec fills one it cannot lstat, rather than failing the call.
 */
export async function readWorktreeFile(repo: Repo, path: string): Promise<Uint8Array> {
  assertSafePath(path);
  try {
    return repo.work.read(path);
  } catch (error) {
    if (isVanished(error)) return new Uint8Array(0);
    throw error;
  }
}

type HashMemo = CachePart<{ sig: string; oid: string }>;

/**
 * The blob oid of a work-tree file, remembered per stat signature (so a touched file is hashed once);
 * null when it vanished between its lstat and its read (or became a link on its way): deleted, as git says.
 */
function hashWorktree(repo: Repo, path: string, st: StatLike, memo: HashMemo): string | null {
  const sig = `${st.mtimeMs}:${st.ctimeMs}:${st.size}:${st.ino}:${st.mode}`;
  const known = memo.get(path);
  if (known?.sig === sig) return known.oid;
  let bytes: Buffer;
  try {
    bytes = repo.work.read(path, st);
  } catch (error) {
    if (isVanished(error)) return null;
    throw error;
  }
  const oid = hashBlob(bytes);
  // A file changed within the last seconds could change again without its stat changing: do not trust it yet.
  if (Date.now() - Math.max(st.mtimeMs, st.ctimeMs) > 3000)
    memo.set(path, { sig, oid }, 2 * OBJECT_OVERHEAD + stringBytes(sig) + 56 + stringBytes(path));
  return oid;
}

/**
 * Compares the work tree with the index (tracked files) and lists untracked files (unless
 * `untracked: false`). Synchronous fs calls: one lstat per tracked file (on two threads for a large index:
 * statPool.ts), one readdir per directory.
 */
export async function worktreeState(repo: Repo, options: WorktreeOptions = {}): Promise<WorktreeState> {
  const index = loadIndex(repo);
  const fileMode = configBool(repoConfig(repo).get('core.filemode')?.at(-1), true);
  const memo: HashMemo = repo.held.part('hashes');
  const changed = new Map<string, FileEntry | null>();
  const racyAfter = index.parsed.mtimeMs;
  if (!index.looked) {
    const entries = index.parsed.entries.filter((e) => e.stage === 0 && e.mode !== 0o160000 && !e.skipWorktree && !e.assumeValid);
    index.looked = { entries, paths: entries.map((e) => e.path) };
  }
  const looked = index.looked.entries;
  // Behind a symlinked folder the file is absent, as git sees it (the link is an untracked entry of its own).
  // Numbers, not an object per file (statPool.ts): only a file whose stat differs gets one.
  const values = repo.work.lstatValues(index.looked.paths);
  for (let i = 0; i < looked.length; i++) {
    const e = looked[i]!;
    const o = i * FIELDS;
    const rawMode = values[o]!;
    const mode = rawMode === MISSING ? null : modeOf(rawMode, fileMode, e.mode);
    if (mode === null) {
      changed.set(e.path, null);
      continue;
    }
    if (mode === e.mode && !e.intentToAdd && statMatches(e, values, o) && values[o + 2]! < racyAfter) continue;
    const oid = hashWorktree(repo, e.path, statAt(values, i)!, memo);
    if (oid === null) changed.set(e.path, null);
    else if (oid !== e.oid || mode !== e.mode || e.intentToAdd) changed.set(e.path, { path: e.path, oid, mode });
  }
  const untracked: string[] = [];
  if (options.untracked !== false) {
    walkUntrackedCached(repo, index, options.excludesFile ?? null, untracked);
    untracked.sort(comparePaths);
  }
  return { changed, untracked };
}
