/** The index as the tools read it: parsed (indexFile.ts) once per change of the file, with lookups by path. */
import { readFileSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import { OBJECT_OVERHEAD, stringBytes } from '../cacheBudget.js';
import type { Repo } from '../repo.js';
import { type IndexEntry, type ParsedIndex, parseIndex } from './indexFile.js';
import type { FileEntry } from './objects.js';

/** A loaded index with the lookups the tools need. */
export interface IndexSnapshot {
  parsed: ParsedIndex;
  /** Stage-0 entries by path. */
  files: Map<string, FileEntry>;
  /** Every entry's path (any stage). */
  paths: Set<string>;
  /** Directories holding tracked paths ('' not included). */
  dirs: Set<string>;
  /** Unmerged paths → bit mask of the stages present (1 base, 2 ours, 4 theirs). */
  unmerged: Map<string, number>;
  /**
   * The entries a status compares with the work tree and their paths, worked out by the first status of this
   * index (worktreeState.ts): the same array on every call, so the lstat helper is sent the paths once.
   */
  looked: { entries: IndexEntry[]; paths: string[] } | undefined;
}

/** The index, parsed and memoized (within the memory budget) by the index file's mtime, size and inode (git replaces it by rename). */
export function loadIndex(repo: Repo): IndexSnapshot {
  const file = join(repo.gitdir, 'index');
  let st: Stats | undefined;
  try {
    st = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = st ? `${st.mtimeMs}:${st.ctimeMs}:${st.size}:${st.ino}` : 'missing';
  const kept = repo.held.part<{ key: string; snapshot: IndexSnapshot }>('index');
  const cached = kept.get('index');
  if (cached?.key === key) return cached.snapshot;
  const parsed: ParsedIndex = st ? parseIndex(readFileSync(file), st.mtimeMs) : { version: 2, entries: [], extensions: [], mtimeMs: 0 };
  const snapshot = snapshotOf(parsed);
  kept.set('index', { key, snapshot }, snapshotBytes(snapshot));
  return snapshot;
}

/**
 * What a loaded index weighs (an estimate): per entry, the parsed record with its stat fields and oid, its
 * FileEntry and the Map and Set slots (the path string is shared by all of them), plus the folders' names.
 */
function snapshotBytes(snapshot: IndexSnapshot): number {
  let n = OBJECT_OVERHEAD * 4;
  for (const e of snapshot.parsed.entries) n += 8 * OBJECT_OVERHEAD + 2 * 56 + 16 + stringBytes(e.path); // 16: its slots in `looked`
  for (const dir of snapshot.dirs) n += OBJECT_OVERHEAD / 2 + stringBytes(dir);
  return n;
}

/** The lookups of a parsed index. */
export function snapshotOf(parsed: ParsedIndex): IndexSnapshot {
  const files = new Map<string, FileEntry>();
  const paths = new Set<string>();
  const dirs = new Set<string>();
  const unmerged = new Map<string, number>();
  for (const e of parsed.entries) {
    paths.add(e.path);
    if (e.stage === 0) files.set(e.path, { path: e.path, oid: e.oid, mode: e.mode });
    else unmerged.set(e.path, (unmerged.get(e.path) ?? 0) | (1 << (e.stage - 1)));
    for (let slash = e.path.lastIndexOf('/'); slash > 0; slash = e.path.lastIndexOf('/', slash - 1)) {
      const dir = e.path.slice(0, slash);
      if (dirs.has(dir)) break;
      dirs.add(dir);
    }
  }
  return { parsed, files, paths, dirs, unmerged, looked: undefined };
}

/** Stage-0 entries of the index by path (unmerged paths are left out). */
export async function indexFiles(repo: Repo): Promise<Map<string, FileEntry>> {
  return loadIndex(repo).files;
}
