/**
 * Building new index entries: from a work-tree file (its blob written with isomorphic-git, its stat data
 * recorded so the next status need not hash it) or from a tree entry (no stat data, as `git read-tree`
 * leaves it, unless the current entry already records the same blob).
 */
import * as git from 'isomorphic-git';
import type { Repo } from '../repo.js';
import type { IndexEntry } from './indexFile.js';
import type { FileEntry } from './objects.js';
import { assertSafePath } from './paths.js';
import { isVanished, type ReadFile } from './workFile.js';
import { worktreeMode } from './worktreeState.js';

const NO_STAT = { ctimeSeconds: 0, ctimeNanoseconds: 0, mtimeSeconds: 0, mtimeNanoseconds: 0, dev: 0, ino: 0, uid: 0, gid: 0, size: 0 };

/** Stages the work-tree file at `path`: writes its blob and returns the stage-0 entry. Null if it is not a file or symlink (or is beyond one). */
export async function entryFromWorktree(repo: Repo, path: string, fileMode: boolean, previous?: IndexEntry): Promise<IndexEntry | null> {
  assertSafePath(path);
  // Behind a symlinked folder there is nothing to stage (git sees no file there), whatever the link reaches.
  const small = repo.work.lstat(path);
  if (small === null) return null;
  const mode = worktreeMode(small, fileMode, previous?.mode);
  if (mode === null) return null;
  // The stat recorded is the one of the very file read (its fstat), never of whatever is at the path later.
  let read: ReadFile;
  try {
    read = repo.work.readWithStat(path, small);
  } catch (error) {
    if (isVanished(error)) return null; // gone since its lstat, or a link on its way by now: nothing to stage
    throw error;
  }
  const { bytes, stat: st } = read;
  const oid = await git.writeBlob({ ...repo.git, blob: bytes });
  const mask = 0xffff_ffffn;
  return {
    path,
    oid,
    mode,
    stage: 0,
    ctimeSeconds: Number((st.ctimeNs / 1_000_000_000n) & mask),
    ctimeNanoseconds: Number(st.ctimeNs % 1_000_000_000n),
    mtimeSeconds: Number((st.mtimeNs / 1_000_000_000n) & mask),
    mtimeNanoseconds: Number(st.mtimeNs % 1_000_000_000n),
    dev: Number(st.dev & mask),
    ino: Number(st.ino & mask),
    uid: Number(st.uid & mask),
    gid: Number(st.gid & mask),
    size: Number(BigInt(bytes.length) & mask),
    assumeValid: false,
    skipWorktree: false,
    intentToAdd: false,
  };
}

/** An index entry for a tree entry, keeping `previous`'s stat data when it records the same blob and mode. */
export function entryFromTree(file: FileEntry, previous?: IndexEntry): IndexEntry {
  if (previous && previous.stage === 0 && previous.oid === file.oid && previous.mode === file.mode && !previous.intentToAdd) {
    return { ...previous, assumeValid: false };
  }
  return {
    path: file.path,
    oid: file.oid,
    mode: file.mode,
    stage: 0,
    ...NO_STAT,
    assumeValid: false,
    skipWorktree: false,
    intentToAdd: false,
  };
}

/** True when `path` is `prefix` or lies under it ('' matches everything). */
export function under(path: string, prefix: string): boolean {
  return prefix === '' || path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47);
}
