/**
 * Objects of the repository, memoized on it (objects never change): HEAD's commit, a commit's or tree's
 * files flattened, and blobs. isomorphic-git resolves refs; objects come from the repository's object
 * store (objectStore.ts, through objectRead.ts).
 */
import { createHash } from 'node:crypto';
import * as git from 'isomorphic-git';
import { OBJECT_OVERHEAD, stringBytes } from '../cacheBudget.js';
import { GitError } from '../errors.js';
import type { Repo } from '../repo.js';
import { readBlobBytes, readObjectParsed, readTree } from './objectRead.js';
import { comparePaths } from './paths.js';

export interface FileEntry {
  path: string;
  oid: string;
  /** 0o100644 | 0o100755 | 0o120000 | 0o160000 */
  mode: number;
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

/** What one flattened file weighs beyond its path: the entry, its oid string and its Map slot (an estimate). */
const FLAT_ENTRY_BYTES = 3 * OBJECT_OVERHEAD + 56;

/** The estimated heap weight of a flattened tree. */
function flatBytes(files: Map<string, FileEntry>): number {
  let n = OBJECT_OVERHEAD;
  for (const path of files.keys()) n += FLAT_ENTRY_BYTES + stringBytes(path);
  return n;
}

/**
 * The files of a commit or tree, flattened (`a/b/c.txt` → entry), memoized by oid within the memory budget
 * (objects never change). The map is shared: callers must not modify it.
 */
export async function treeFiles(repo: Repo, commitOrTreeOid: string): Promise<Map<string, FileEntry>> {
  const trees = repo.held.part<Map<string, FileEntry>>('trees');
  const treeOf = repo.held.part<string>('treeOf');
  const known = treeOf.get(commitOrTreeOid) ?? commitOrTreeOid;
  const hit = trees.get(known);
  if (hit) return hit;
  let treeOid = known;
  if (known === commitOrTreeOid) {
    const { type, object } = await readObjectParsed(repo, commitOrTreeOid);
    if (type === 'commit') treeOid = (object as { tree: string }).tree;
    else if (type !== 'tree') throw new GitError('INVALID_ARGUMENT', `${commitOrTreeOid} is a ${type}, not a commit or tree`);
    if (treeOid !== commitOrTreeOid) treeOf.set(commitOrTreeOid, treeOid, 2 * OBJECT_OVERHEAD + 112);
  }
  let files = trees.get(treeOid);
  if (!files) {
    files = new Map();
    await flatten(repo, treeOid, '', files);
    trees.set(treeOid, files, flatBytes(files));
  }
  return files;
}

async function flatten(repo: Repo, treeOid: string, prefix: string, out: Map<string, FileEntry>): Promise<void> {
  const { tree } = await readTree(repo, treeOid);
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

/** sha1 of `blob <len>\0<bytes>`. */
export function hashBlob(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** A blob larger than this is read each time it is needed, not kept. */
const BLOB_KEEP_MAX = 16 * 1024 * 1024;

/**
 * A blob's bytes, from the repository's object store (objectRead.ts). Memoized by oid within the memory budget
 * (blobs never change); the bytes
 * returned are shared, so callers must not modify them.
 */
export async function readBlob(repo: Repo, oid: string): Promise<Uint8Array> {
  const blobs = repo.held.part<Uint8Array>('blobs');
  const hit = blobs.get(oid);
  if (hit) return hit;
  const blob = await readBlobBytes(repo, oid);
  if (blob.length <= BLOB_KEEP_MAX) blobs.set(oid, blob, blob.length + OBJECT_OVERHEAD);
  return blob;
}
