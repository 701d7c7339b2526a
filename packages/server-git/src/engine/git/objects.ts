/**
 * Objects of the repository, memoized on it (objects never change): HEAD's commit, a commit's or tree's
 * files flattened, and blobs. isomorphic-git resolves refs; objects come from the repository's object
 * store (objectStore.ts, through objectRead.ts).
 */
import { createHash } from 'node:crypto';
import * as git from 'isomorphic-git';
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

export const EMPTY_BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';

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
  let lru = repo.state.trees;
  if (!lru) {
    lru = new Map();
    repo.state.trees = lru;
  }
  const hit = lru.get(commitOrTreeOid);
  if (hit) {
    lru.delete(commitOrTreeOid);
    lru.set(commitOrTreeOid, hit);
    return hit;
  }
  const { type, object } = await readObjectParsed(repo, commitOrTreeOid);
  let treeOid = commitOrTreeOid;
  if (type === 'commit') treeOid = (object as { tree: string }).tree;
  else if (type !== 'tree') throw new GitError('INVALID_ARGUMENT', `${commitOrTreeOid} is a ${type}, not a commit or tree`);
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

/** Blob contents by oid, least recently used dropped first once their bytes pass BLOB_CACHE_BYTES. */
export interface BlobCache {
  map: Map<string, Uint8Array>;
  bytes: number;
}

const BLOB_CACHE_BYTES = 64 * 1024 * 1024;

function blobCache(repo: Repo): BlobCache {
  let c = repo.state.blobs;
  if (!c) {
    c = { map: new Map(), bytes: 0 };
    repo.state.blobs = c;
  }
  return c;
}

/**
 * A blob's bytes, from the repository's object store (objectRead.ts). Memoized by oid (blobs never change); the bytes
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
  const blob = await readBlobBytes(repo, oid);
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
