/**
 * Untracked files: one readdir walk that skips `.git`, applies the ignore rules and never enters an
 * ignored directory, with each directory's listing remembered on the repository (within the memory budget)
 * until its stat, its ignore files or the index change.
 */
import { type Dirent, existsSync } from 'node:fs';
import { join } from 'node:path';
import { OBJECT_OVERHEAD, stringBytes } from '../cacheBudget.js';
import type { Repo } from '../repo.js';
import { IgnoreRules } from './ignore.js';
import { type IndexSnapshot, loadIndex } from './indexSnapshot.js';
import { comparePaths } from './paths.js';
import { lstatOrNull } from './statPool.js';

/** What one directory contributes to the untracked walk, as last read. */
interface DirListing {
  /** The directory's lstat (mtime, ctime, inode): an entry added, removed or renamed in it changes it. */
  sig: string;
  /** The ignore rules that applied: every `.gitignore` on the way down, by stat. */
  chain: string;
  /** Untracked, not ignored files directly in it. */
  files: string[];
  /** Sub-directories to look into (not ignored, not a submodule). */
  subdirs: string[];
}

interface UntrackedCache {
  index: IndexSnapshot;
  global: string;
  dirs: Map<string, DirListing>;
}

function statSig(abs: string): string {
  const st = lstatOrNull(abs);
  return st ? `${st.mtimeMs}:${st.ctimeMs}:${st.ino}:${st.size}` : '-';
}

/** A stat newer than this may still change within the same timestamp: not cached (git's racy rule). */
const RACY_MS = 3000;

/**
 * The untracked walk with git's "untracked cache" idea: a directory whose own stat, ignore files and
 * index are unchanged since it was last read has the same untracked files and sub-directories, so it
 * is not read again (its sub-directories still are checked, each by its own stat). Two lstats per
 * directory instead of a readdir and an ignore match per entry.
 */
export function walkUntrackedCached(repo: Repo, index: IndexSnapshot, excludesFile: string | null, out: string[]): void {
  const global = `${statSig(join(repo.gitdir, 'info', 'exclude'))}|${excludesFile ? statSig(excludesFile) : '-'}`;
  const kept = repo.held.part<UntrackedCache>('untracked');
  let cache = kept.get('walk');
  if (!cache || cache.index !== index || cache.global !== global) cache = { index, global, dirs: new Map() };
  const dirs = cache.dirs;
  let rules: IgnoreRules | undefined;
  const now = Date.now();
  const visit = (dirRel: string, parentChain: string): void => {
    const abs = dirRel === '' ? repo.dir : join(repo.dir, dirRel);
    const st = lstatOrNull(abs);
    if (!st?.isDirectory()) return;
    const sig = `${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
    const chain = `${parentChain}/${statSig(join(abs, '.gitignore'))}`;
    let listing = dirs.get(dirRel);
    if (!listing || listing.sig !== sig || listing.chain !== chain) {
      rules ??= new IgnoreRules(repo.dir, repo.gitdir, excludesFile);
      const read = readListing(repo, dirRel, index, rules, sig, chain);
      listing = read ?? { sig, chain, files: [], subdirs: [] };
      if (read && now - st.mtimeMs > RACY_MS) dirs.set(dirRel, listing);
      else dirs.delete(dirRel);
    }
    for (const file of listing.files) out.push(file);
    for (const sub of listing.subdirs) {
      if (!index.dirs.has(sub) && !repo.work.throughLink(sub) && existsSync(join(repo.dir, sub, '.git'))) {
        out.push(`${sub}/`); // a nested repository: git shows the folder, never its files
        continue;
      }
      visit(sub, chain);
    }
  };
  visit('', '');
  // Kept (and re-weighed) within the memory budget; the index it was read against is the one loadIndex keeps.
  let bytes = OBJECT_OVERHEAD;
  for (const [dir, l] of dirs) {
    bytes += 2 * OBJECT_OVERHEAD + stringBytes(dir) + stringBytes(l.sig) + stringBytes(l.chain);
    for (const f of l.files) bytes += 8 + stringBytes(f);
    for (const d of l.subdirs) bytes += 8 + stringBytes(d);
  }
  kept.set('walk', cache, bytes);
}

/**
 * One directory's listing, or null when it cannot be listed: gone, or a link by now (listed through the
 * work tree's checked open, so a folder swapped for a link after its lstat never lists the link's target).
 */
function readListing(repo: Repo, dirRel: string, index: IndexSnapshot, rules: IgnoreRules, sig: string, chain: string): DirListing | null {
  const listing: DirListing = { sig, chain, files: [], subdirs: [] };
  let entries: Dirent[];
  try {
    entries = repo.work.files.list(dirRel);
  } catch {
    return null;
  }
  rules.enter(
    dirRel,
    entries.some((d) => d.name === '.gitignore'),
  );
  for (const ent of entries) {
    const name = ent.name;
    if (name === '.git') continue;
    const rel = dirRel === '' ? name : `${dirRel}/${name}`;
    if (ent.isDirectory()) {
      if (index.files.get(rel)?.mode === 0o160000) continue;
      if (rules.isIgnored(rel, true)) continue;
      listing.subdirs.push(rel);
    } else if (ent.isFile() || ent.isSymbolicLink()) {
      if (index.paths.has(rel)) continue;
      if (rules.isIgnored(rel, false)) continue;
      listing.files.push(rel);
    }
  }
  return listing;
}

/** Untracked files under `prefix` ('' = everywhere), for git_add. */
export function untrackedUnder(repo: Repo, prefix: string, excludesFile: string | null): string[] {
  const out: string[] = [];
  walkUntrackedCached(repo, loadIndex(repo), excludesFile, out);
  const inside = prefix === '' ? out : out.filter((rel) => rel.startsWith(`${prefix}/`) || rel === `${prefix}/`);
  return inside.sort(comparePaths);
}
