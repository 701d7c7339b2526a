/**
 * The work tree as git sees it: git never follows a symbolic link inside the work tree
 * (`has_symlink_leading_path`). A path with a symlinked folder on its way is absent, whatever the link
 * points to (inside, outside, nowhere, itself); the link is an entry of its own, a mode-120000 blob
 * holding the link's text. Every read of a work-tree file goes through here or through the confined fs
 * (confinedFs.ts), which asks `beyondLink` before each work-tree call, so neither a status nor a diff,
 * `git_add` or a stash ever reads a file through a link, and no write or removal goes through one.
 * `beyondLink` answers from this call's lstats; the read or change itself is then made through
 * `files` (workFile.ts), which checks again at the open, so a link swapped in between is not followed.
 *
 * One instance per tool call: which folders are links is remembered for the call (one lstat per folder,
 * not per file), and forgotten for a path the call itself creates, removes or renames.
 */
import { lstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { FIELDS, lstatOrNull, MISSING, type StatLike, type StatPool, writeStat } from './statPool.js';
import { createWorkFiles, linkError, type ReadFile, type WorkFileHooks, type WorkFiles } from './workFile.js';

export { linkError };

export interface WorkTree {
  /** The work tree (real, absolute). */
  readonly dir: string;
  /** True when a folder on the way to `rel` (`/`-separated, relative to the top; `rel` itself excluded) is a symlink. */
  beyondLink(rel: string): boolean;
  /** True when `rel` itself or a folder on its way is a symlink (a folder that must not be listed or entered). */
  throughLink(rel: string): boolean;
  /** lstat of `rel`, or null when it is missing or beyond a symbolic link (git's "absent"). */
  lstat(rel: string): Stats | null;
  /**
   * `lstat` of each path, in order, as numbers (the pool's `lstatValues`: FIELDS per path, mode MISSING when
   * absent or beyond a link), no object per path; large lists are shared with the stat pool's helper thread (statPool.ts).
   */
  lstatValues(rels: readonly string[]): Float64Array;
  /** What git stores for `rel`: a symlink's text, else the file's bytes, never read through a link. Throws ENOENT beyond one. */
  read(rel: string, st?: StatLike): Buffer;
  /** `read`, with the stat of what was read (the file's fstat, the link's lstat). */
  readWithStat(rel: string, st?: StatLike): ReadFile;
  /** Every read and change of work-tree content, never through a link, even one swapped in after a check (workFile.ts). */
  readonly files: WorkFiles;
  /** Forgets what is known about `rel` and below, after the caller created, removed or renamed it. */
  changed(rel: string): void;
}

/** The file-type bits of an lstat's mode. */
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/**
 * The work tree at `dir` for one call; `stats` (the repository cache's pool) lstats long lists on two
 * threads. Without it every lstat is done on the calling thread. `hooks` is a test seam (workFile.ts).
 */
export function createWorkTree(dir: string, stats?: StatPool, hooks?: WorkFileHooks): WorkTree {
  const files = createWorkFiles(dir, hooks);
  /** Folder → "it, or a folder on its way, is a symlink". Invariant: a cached folder's parents are cached too. */
  const viaLink = new Map<string, boolean>();
  const throughLink = (rel: string): boolean => {
    if (rel === '') return false;
    const known = viaLink.get(rel);
    if (known !== undefined) return known;
    const slash = rel.lastIndexOf('/');
    let link = slash > 0 && throughLink(rel.slice(0, slash));
    if (!link) {
      try {
        link = lstatSync(join(dir, rel)).isSymbolicLink();
      } catch {
        link = false; // missing, or under a file: whatever is below it is missing too
      }
    }
    viaLink.set(rel, link);
    return link;
  };
  const beyondLink = (rel: string): boolean => {
    const slash = rel.lastIndexOf('/');
    return slash > 0 && throughLink(rel.slice(0, slash));
  };
  const lstat = (rel: string): Stats | null => (beyondLink(rel) ? null : lstatOrNull(join(dir, rel)));
  const lstatValues = (rels: readonly string[]): Float64Array => {
    if (!stats) {
      const out = new Float64Array(rels.length * FIELDS);
      for (let i = 0; i < rels.length; i++) {
        writeStat(lstat(rels[i]!), out, i * FIELDS);
      }
      return out;
    }
    // Paths beyond a symlinked folder are absent and never lstat'ed. Index order keeps a folder's files
    // together, so the folder's answer is reused while it lasts.
    let folder: string | undefined;
    let folderBeyond = false;
    let reachable: string[] | undefined;
    let at: number[] | undefined;
    for (let i = 0; i < rels.length; i++) {
      const rel = rels[i]!;
      const slash = rel.lastIndexOf('/');
      const parent = slash > 0 ? rel.slice(0, slash) : '';
      if (parent !== folder) {
        folder = parent;
        folderBeyond = parent !== '' && throughLink(parent);
      }
      if (folderBeyond) {
        // The first path beyond a link: from here on the reachable ones are listed apart.
        if (!reachable) {
          reachable = rels.slice(0, i);
          at = Array.from({ length: i }, (_, k) => k);
        }
        continue;
      }
      reachable?.push(rel);
      at?.push(i);
    }
    if (!reachable || !at) return stats.lstatValues(dir, rels); // the same array: the helper may have it already
    const found = stats.lstatValues(dir, reachable);
    const out = new Float64Array(rels.length * FIELDS).fill(MISSING);
    for (let k = 0; k < at.length; k++) out.set(found.subarray(k * FIELDS, (k + 1) * FIELDS), at[k]! * FIELDS);
    return out;
  };
  /** The kind comes from `st` (the caller's lstat) when given; the read itself checks it again. */
  const readWithStat = (rel: string, st?: StatLike): ReadFile => {
    if (beyondLink(rel)) throw linkError('ENOENT', 'read', join(dir, rel));
    const mode = (st ?? lstatSync(join(dir, rel))).mode;
    return (mode & S_IFMT) === S_IFLNK ? files.readlink(rel) : files.read(rel);
  };
  return {
    dir,
    beyondLink,
    throughLink,
    lstat,
    lstatValues,
    files,
    read: (rel, st) => readWithStat(rel, st).bytes,
    readWithStat,
    changed(rel) {
      if (!viaLink.has(rel)) return; // nothing below it is cached either
      const prefix = `${rel}/`;
      for (const key of viaLink.keys()) if (key === rel || key.startsWith(prefix)) viaLink.delete(key);
    },
  };
}
