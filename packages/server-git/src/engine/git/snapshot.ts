/**
 * The three trees git status compares — HEAD, the index and the work tree — built fast enough for large
 * repositories. isomorphic-git is used for objects (refs, trees, blobs, with the repository's cache);
 * the index is parsed here (indexFile.ts) and the work tree is compared with it the way git does: an
 * entry whose lstat data (mtime, ctime, size, inode, mode) matches the index is unchanged, and content
 * is hashed only when the stat data differs or the entry is "racily clean" (modified in the same
 * instant the index was written). Untracked files come from one readdir walk that skips `.git`, applies
 * the ignore rules and never enters an ignored directory. Work-tree files are looked at through the
 * call's WorkTree (workTree.ts): nothing behind a symlinked folder is ever read, as in git.
 *
 * Not handled: clean/smudge filters and end-of-line conversion (content is hashed as stored), submodule
 * state (a gitlink is always unchanged), fsmonitor and the untracked cache.
 */
import { createHash } from 'node:crypto';
import { type Dirent, existsSync, lstatSync, readdirSync, readFileSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { ToolError } from '@mcpkit/protocol-core';
import * as git from 'isomorphic-git';
import type { Repo } from '../repo.js';
import { configBool, repoConfig } from './gitConfig.js';
import { IgnoreRules } from './ignore.js';
import { type IndexEntry, type ParsedIndex, parseIndex } from './indexFile.js';

export interface FileEntry {
  path: string;
  oid: string;
  /** 0o100644 | 0o100755 | 0o120000 | 0o160000 */
  mode: number;
}

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
}

export const EMPTY_BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';

/** Byte-wise path order (git's), also right for non-ASCII names. */
export function comparePaths(a: string, b: string): number {
  if (a === b) return 0;
  // Fast path for ASCII, where UTF-16 order is byte order.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      if (x < 0x80 && y < 0x80) return x - y;
      return Buffer.compare(Buffer.from(a.slice(i)), Buffer.from(b.slice(i)));
    }
  }
  return a.length - b.length;
}

/** Refuses a path from the index or a tree that could leave the work tree (`..`, absolute, `.git`). */
export function assertSafePath(path: string): void {
  if (
    path === '' ||
    path.startsWith('/') ||
    path.split('/').some((p) => p === '' || p === '.' || p === '..' || p.toLowerCase() === '.git')
  ) {
    throw new ToolError(`Refusing the unsafe path '${path}' recorded in the repository`);
  }
}

/** HEAD's commit, or null on an unborn branch. */
export async function headCommit(repo: Repo): Promise<string | null> {
  try {
    return await git.resolveRef({ ...repo.git, ref: 'HEAD' });
  } catch (error) {
    if ((error as { code?: string }).code === 'NotFoundError') return null;
    throw error;
  }
}

const TREE_LRU = 8;

/** The files of a commit or tree, flattened (`a/b/c.txt` → entry), memoized by oid (objects never change). */
export async function treeFiles(repo: Repo, commitOrTreeOid: string): Promise<Map<string, FileEntry>> {
  let lru = repo.memo.get('snapshot:trees') as Map<string, Map<string, FileEntry>> | undefined;
  if (!lru) {
    lru = new Map();
    repo.memo.set('snapshot:trees', lru);
  }
  const hit = lru.get(commitOrTreeOid);
  if (hit) {
    lru.delete(commitOrTreeOid);
    lru.set(commitOrTreeOid, hit);
    return hit;
  }
  const { type, object } = await git.readObject({ ...repo.git, oid: commitOrTreeOid, format: 'parsed' });
  let treeOid = commitOrTreeOid;
  if (type === 'commit') treeOid = (object as { tree: string }).tree;
  else if (type !== 'tree') throw new ToolError(`${commitOrTreeOid} is a ${type}, not a commit or tree`);
  let files = lru.get(treeOid);
  if (!files) {
    files = new Map();
    await flatten(repo, treeOid, '', files);
    lru.set(treeOid, files);
  }
  lru.set(commitOrTreeOid, files);
  while (lru.size > TREE_LRU) lru.delete(lru.keys().next().value as string);
  return files;
}

async function flatten(repo: Repo, treeOid: string, prefix: string, out: Map<string, FileEntry>): Promise<void> {
  const { tree } = await git.readTree({ ...repo.git, oid: treeOid });
  // Tree order puts `a.txt` before `a/`; git's path order wants `a/…` before `a0`, so collect and sort.
  const subtrees: Promise<Map<string, FileEntry>>[] = [];
  for (const entry of tree) {
    const path = prefix + entry.path;
    if (entry.type === 'tree') {
      const sub = new Map<string, FileEntry>();
      subtrees.push(flatten(repo, entry.oid, `${path}/`, sub).then(() => sub));
    } else {
      out.set(path, { path, oid: entry.oid, mode: Number.parseInt(entry.mode, 8) });
    }
  }
  for (const sub of await Promise.all(subtrees)) for (const [k, v] of sub) out.set(k, v);
  if (prefix === '') {
    const sorted = [...out.entries()].sort((a, b) => comparePaths(a[0], b[0]));
    out.clear();
    for (const [k, v] of sorted) out.set(k, v);
  }
}

/** The index, parsed and memoized by the index file's mtime, size and inode (git replaces it by rename). */
export function loadIndex(repo: Repo): IndexSnapshot {
  const file = join(repo.gitdir, 'index');
  let st: Stats | undefined;
  try {
    st = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = st ? `${st.mtimeMs}:${st.ctimeMs}:${st.size}:${st.ino}` : 'missing';
  const cached = repo.memo.get('snapshot:index') as { key: string; snapshot: IndexSnapshot } | undefined;
  if (cached?.key === key) return cached.snapshot;
  const parsed: ParsedIndex = st ? parseIndex(readFileSync(file), st.mtimeMs) : { version: 2, entries: [], extensions: [], mtimeMs: 0 };
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
  const snapshot = { parsed, files, paths, dirs, unmerged };
  repo.memo.set('snapshot:index', { key, snapshot });
  return snapshot;
}

/** Stage-0 entries of the index by path (unmerged paths are left out). */
export async function indexFiles(repo: Repo): Promise<Map<string, FileEntry>> {
  return loadIndex(repo).files;
}

/** The mode git records for a work-tree file, or null for something it does not track (a directory, a fifo). */
export function worktreeMode(st: Stats, fileMode = true, indexMode?: number): number | null {
  if (st.isSymbolicLink()) return 0o120000;
  if (!st.isFile()) return null;
  if (!fileMode) return indexMode === 0o100755 ? 0o100755 : 0o100644;
  return st.mode & 0o100 ? 0o100755 : 0o100644;
}

/** sha1 of `blob <len>\0<bytes>`. */
export function hashBlob(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** Whether the index entry's stat data still describes `st` (git's ie_match_stat, without uid/gid/dev). */
function statMatches(e: IndexEntry, st: Stats): boolean {
  if (e.size !== st.size % 0x1_0000_0000) return false;
  if (e.mtimeSeconds !== Math.floor(st.mtimeMs / 1000)) return false;
  if (e.ctimeSeconds !== Math.floor(st.ctimeMs / 1000)) return false;
  if (e.ino !== 0 && e.ino !== st.ino % 0x1_0000_0000) return false;
  // Sub-second parts: a double holds ms with ~0.2 µs precision, and isomorphic-git rounds; allow 2 µs.
  const mtimeNs = (st.mtimeMs % 1000) * 1e6;
  const ctimeNs = (st.ctimeMs % 1000) * 1e6;
  return Math.abs(mtimeNs - e.mtimeNanoseconds) < 2000 && Math.abs(ctimeNs - e.ctimeNanoseconds) < 2000;
}

/** Reads a work-tree file as git stores it: a symlink's target text, else the bytes (never through a symlinked folder). */
export async function readWorktreeFile(repo: Repo, path: string): Promise<Uint8Array> {
  assertSafePath(path);
  return repo.work.read(path);
}

/** Blob contents by oid, least recently used dropped first once their bytes pass BLOB_CACHE_BYTES. */
interface BlobCache {
  map: Map<string, Uint8Array>;
  bytes: number;
}

const BLOB_CACHE_BYTES = 64 * 1024 * 1024;
const OID_RE = /^[0-9a-f]{40}$/;

function blobCache(repo: Repo): BlobCache {
  let c = repo.memo.get('snapshot:blobs') as BlobCache | undefined;
  if (!c) {
    c = { map: new Map(), bytes: 0 };
    repo.memo.set('snapshot:blobs', c);
  }
  return c;
}

/** A loose blob read straight from `objects/xx/yyyy…`, or null when it is not a loose blob. */
function readLooseBlob(repo: Repo, oid: string): Uint8Array | null {
  if (!OID_RE.test(oid)) return null;
  let raw: Buffer;
  try {
    raw = readFileSync(join(repo.gitdir, 'objects', oid.slice(0, 2), oid.slice(2)));
  } catch {
    return null;
  }
  let data: Buffer;
  try {
    data = inflateSync(raw);
  } catch {
    return null;
  }
  const nul = data.indexOf(0);
  if (nul < 0 || nul > 32) return null;
  const header = data.toString('latin1', 0, nul);
  if (!header.startsWith('blob ')) return null;
  const len = Number(header.slice(5));
  if (!Number.isInteger(len) || len !== data.length - nul - 1) return null;
  return data.subarray(nul + 1);
}

/**
 * A blob's bytes: a loose object is read and inflated directly, anything else (packed objects) goes
 * through isomorphic-git and the repository's cache. Memoized by oid (blobs never change); the bytes
 * returned are shared, so callers must not modify them.
 */
export async function readBlob(repo: Repo, oid: string): Promise<Uint8Array> {
  const cache = blobCache(repo);
  const hit = cache.map.get(oid);
  if (hit) {
    cache.map.delete(oid);
    cache.map.set(oid, hit);
    return hit;
  }
  let blob = readLooseBlob(repo, oid);
  if (!blob) blob = (await git.readBlob({ ...repo.git, oid })).blob;
  if (blob.length <= BLOB_CACHE_BYTES / 4 && !cache.map.has(oid)) {
    cache.map.set(oid, blob);
    cache.bytes += blob.length;
    while (cache.bytes > BLOB_CACHE_BYTES) {
      const [k, v] = cache.map.entries().next().value as [string, Uint8Array];
      cache.map.delete(k);
      cache.bytes -= v.length;
    }
  }
  return blob;
}

type HashMemo = Map<string, { sig: string; oid: string }>;

/** The blob oid of a work-tree file, remembered per stat signature (so a touched file is hashed once). */
function hashWorktree(repo: Repo, path: string, st: Stats, memo: HashMemo): string {
  const sig = `${st.mtimeMs}:${st.ctimeMs}:${st.size}:${st.ino}:${st.mode}`;
  const known = memo.get(path);
  if (known?.sig === sig) return known.oid;
  const oid = hashBlob(repo.work.read(path, st));
  // A file changed within the last seconds could change again without its stat changing: do not trust it yet.
  if (Date.now() - Math.max(st.mtimeMs, st.ctimeMs) > 3000) memo.set(path, { sig, oid });
  return oid;
}

function lstatOrNull(abs: string): Stats | null {
  try {
    return lstatSync(abs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/**
 * Compares the work tree with the index (tracked files) and lists untracked files (unless
 * `untracked: false`). Synchronous fs calls: one lstat per tracked file, one readdir per directory.
 */
export async function worktreeState(repo: Repo, options: WorktreeOptions = {}): Promise<WorktreeState> {
  const index = loadIndex(repo);
  const fileMode = configBool(repoConfig(repo).get('core.filemode')?.at(-1), true);
  let memo = repo.memo.get('snapshot:hashes') as HashMemo | undefined;
  if (!memo) {
    memo = new Map();
    repo.memo.set('snapshot:hashes', memo);
  }
  const changed = new Map<string, FileEntry | null>();
  const racyAfter = index.parsed.mtimeMs;
  for (const e of index.parsed.entries) {
    if (e.stage !== 0 || e.mode === 0o160000 || e.skipWorktree || e.assumeValid) continue;
    // Behind a symlinked folder the file is absent, as git sees it (the link is an untracked entry of its own).
    const st = repo.work.lstat(e.path);
    const mode = st ? worktreeMode(st, fileMode, e.mode) : null;
    if (mode === null) {
      changed.set(e.path, null);
      continue;
    }
    if (mode === e.mode && !e.intentToAdd && statMatches(e, st!) && st!.mtimeMs < racyAfter) continue;
    const oid = hashWorktree(repo, e.path, st!, memo);
    if (oid !== e.oid || mode !== e.mode || e.intentToAdd) changed.set(e.path, { path: e.path, oid, mode });
  }
  const untracked: string[] = [];
  if (options.untracked !== false) {
    walkUntrackedCached(repo, index, options.excludesFile ?? null, untracked);
    untracked.sort(comparePaths);
  }
  return { changed, untracked };
}

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
function walkUntrackedCached(repo: Repo, index: IndexSnapshot, excludesFile: string | null, out: string[]): void {
  const global = `${statSig(join(repo.gitdir, 'info', 'exclude'))}|${excludesFile ? statSig(excludesFile) : '-'}`;
  let cache = repo.memo.get('snapshot:untracked') as UntrackedCache | undefined;
  if (!cache || cache.index !== index || cache.global !== global) {
    cache = { index, global, dirs: new Map() };
    repo.memo.set('snapshot:untracked', cache);
  }
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
      listing = readListing(repo.dir, dirRel, index, rules, sig, chain);
      if (now - st.mtimeMs > RACY_MS) dirs.set(dirRel, listing);
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
}

function readListing(top: string, dirRel: string, index: IndexSnapshot, rules: IgnoreRules, sig: string, chain: string): DirListing {
  const listing: DirListing = { sig, chain, files: [], subdirs: [] };
  let entries: Dirent[];
  try {
    entries = readdirSync(dirRel === '' ? top : join(top, dirRel), { withFileTypes: true });
  } catch {
    return listing;
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
