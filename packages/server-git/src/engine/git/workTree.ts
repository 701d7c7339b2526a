/**
 * The work tree as git sees it: git never follows a symbolic link inside the work tree
 * (`has_symlink_leading_path`). A path with a symlinked folder on its way is absent, whatever the link
 * points to (inside, outside, nowhere, itself); the link is an entry of its own, a mode-120000 blob
 * holding the link's text. Every read of a work-tree file goes through here or through the confined fs
 * (confinedFs.ts), which asks `beyondLink` before each work-tree call, so neither a status nor a diff,
 * `git_add` or a stash ever reads a file through a link, and no write or removal goes through one.
 *
 * One instance per tool call: which folders are links is remembered for the call (one lstat per folder,
 * not per file), and forgotten for a path the call itself creates, removes or renames.
 */
import { closeSync, constants, lstatSync, openSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { lstatOrNull, type StatLike, type StatPool } from './statPool.js';

export interface WorkTree {
  /** The work tree (real, absolute). */
  readonly dir: string;
  /** True when a folder on the way to `rel` (`/`-separated, relative to the top; `rel` itself excluded) is a symlink. */
  beyondLink(rel: string): boolean;
  /** True when `rel` itself or a folder on its way is a symlink (a folder that must not be listed or entered). */
  throughLink(rel: string): boolean;
  /** lstat of `rel`, or null when it is missing or beyond a symbolic link (git's "absent"). */
  lstat(rel: string): Stats | null;
  /** `lstat` of each path, in order; large lists are shared with the stat pool's helper thread (statPool.ts). */
  lstatAll(rels: readonly string[]): (StatLike | null)[];
  /** What git stores for `rel`: a symlink's text, else the file's bytes, never read through a link. Throws ENOENT beyond one. */
  read(rel: string, st?: StatLike): Buffer;
  /** Forgets what is known about `rel` and below, after the caller created, removed or renamed it. */
  changed(rel: string): void;
}

/** An fs error as node makes them (code, path), for a path git would treat as absent or never touch. */
export function linkError(code: 'ENOENT' | 'ENOTDIR' | 'EACCES', op: string, file: string): NodeJS.ErrnoException {
  const why = code === 'EACCES' ? `${op} beyond a symbolic link in the work tree is not allowed` : `${op}: beyond a symbolic link`;
  const error: NodeJS.ErrnoException = new Error(`${code}: ${why}: '${file}'`);
  error.code = code;
  error.path = file;
  return error;
}

/** O_NOFOLLOW where the platform has it (not on Windows, where lstat is checked first instead). */
const NOFOLLOW: number | undefined = constants.O_NOFOLLOW;

/**
 * Reads a regular file without following a symlink in its last component: ELOOP (or, without
 * O_NOFOLLOW, a symlink found by lstat) is reported as ENOENT, since git treats such a file as absent.
 */
export function readNoFollow(abs: string): Buffer {
  if (NOFOLLOW === undefined) {
    if (lstatSync(abs).isSymbolicLink()) throw linkError('ENOENT', 'read', abs);
    return readFileSync(abs);
  }
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw linkError('ENOENT', 'read', abs);
    throw error;
  }
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file-type bits of an lstat's mode. */
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/**
 * The work tree at `dir` for one call; `stats` (the repository cache's pool) lstats long lists on two
 * threads. Without it every lstat is done on the calling thread.
 */
export function createWorkTree(dir: string, stats?: StatPool): WorkTree {
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
  const lstatAll = (rels: readonly string[]): (StatLike | null)[] => {
    if (!stats) return rels.map(lstat);
    // Paths beyond a symlinked folder are absent and never lstat'ed. Index order keeps a folder's files
    // together, so the folder's answer is reused while it lasts.
    let folder: string | undefined;
    let folderBeyond = false;
    const reachable: string[] = [];
    const at: number[] = [];
    for (let i = 0; i < rels.length; i++) {
      const rel = rels[i]!;
      const slash = rel.lastIndexOf('/');
      const parent = slash > 0 ? rel.slice(0, slash) : '';
      if (parent !== folder) {
        folder = parent;
        folderBeyond = parent !== '' && throughLink(parent);
      }
      if (folderBeyond) continue;
      reachable.push(rel);
      at.push(i);
    }
    if (reachable.length === rels.length) return stats.lstatAll(dir, rels);
    const found = stats.lstatAll(dir, reachable);
    const out: (StatLike | null)[] = new Array(rels.length).fill(null);
    for (let k = 0; k < at.length; k++) out[at[k]!] = found[k]!;
    return out;
  };
  return {
    dir,
    beyondLink,
    throughLink,
    lstat,
    lstatAll,
    read(rel, st) {
      const abs = join(dir, rel);
      if (beyondLink(rel)) throw linkError('ENOENT', 'read', abs);
      const mode = (st ?? lstatSync(abs)).mode;
      return (mode & S_IFMT) === S_IFLNK ? readlinkSync(abs, { encoding: 'buffer' }) : readNoFollow(abs);
    },
    changed(rel) {
      if (!viaLink.has(rel)) return; // nothing below it is cached either
      const prefix = `${rel}/`;
      for (const key of viaLink.keys()) if (key === rel || key.startsWith(prefix)) viaLink.delete(key);
    },
  };
}
