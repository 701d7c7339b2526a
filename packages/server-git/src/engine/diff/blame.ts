/**
 * Line blame as `git blame <rev> -- <file>` computes it: starting from the file at `rev`, lines are
 * passed to a parent while the parent has them (same blob: all of them; otherwise the lines outside the
 * changes of git's own zero-context diff), commits taken newest first (committer date) so that lines
 * reaching the same commit by different merge paths are handled together; renames are followed when the
 * path is missing in a parent. What no parent has is blamed on the commit. Nothing is written.
 */

import { isObjectStoreError } from '../git/objectLimits.js';
import { findTreeEntry, readCommit, readTree } from '../git/objectRead.js';
import { readBlob } from '../git/objects.js';
import type { Repo } from '../repo.js';
import { compareTrees } from './changes.js';
import { type Change, diffTables } from './lineDiff.js';
import { type LineTable, lineAt, lineTable } from './lineTable.js';
import { bytesToByteString, commonTailCut } from './patch.js';

interface CommitMeta {
  oid: string;
  tree: string;
  parents: string[];
  author: { name: string; email: string; timestamp: number; timezoneOffset: number };
  committerTime: number;
  summary: string;
}

export interface BlameLine {
  /** 1-based line number in the file at the blamed revision. */
  line: number;
  /** 1-based line number in the file as the blamed commit has it. */
  orig_line: number;
  commit: CommitMeta;
  /** The file's path in that commit (differs after a rename). */
  path: string;
  /** The commit has no parent (git marks it as a boundary, `^`). */
  boundary: boolean;
  /** The line, a byte string with its newline (if it has one). */
  content: string;
}

/** Lines of a file as one commit has it, waiting to be passed on or blamed there. */
interface Origin {
  commit: CommitMeta;
  path: string;
  blob: string;
  /** Lines in this origin (0-based, ascending, each once) and, at the same index, their final line (0-based). */
  orig: Int32Array;
  fin: Int32Array;
}

/** Lines of `b` added to those of `a` (a line in both: b's final line, as a later Map.set would). */
function mergeLines(a: Origin, orig: Int32Array, fin: Int32Array): void {
  const o = new Int32Array(a.orig.length + orig.length);
  const f = new Int32Array(o.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.orig.length || j < orig.length) {
    if (j === orig.length || (i < a.orig.length && a.orig[i]! < orig[j]!)) {
      o[k] = a.orig[i]!;
      f[k++] = a.fin[i++]!;
    } else {
      if (i < a.orig.length && a.orig[i] === orig[j]) i++;
      o[k] = orig[j]!;
      f[k++] = fin[j++]!;
    }
  }
  a.orig = o.subarray(0, k);
  a.fin = f.subarray(0, k);
}

const MEMO_LIMIT = 4000;

/** What blame keeps per repository (in `repo.state.blame`). */
export interface BlameMemo {
  commits: Map<string, CommitMeta>;
  trees: Map<string, TreeLookups>;
  counts: Map<string, number>;
  diffs: Map<string, Change[]>;
  renames: Map<string, string | null>;
}

function memoMap<K extends keyof BlameMemo>(repo: Repo, key: K): BlameMemo[K] {
  repo.state.blame ??= { commits: new Map(), trees: new Map(), counts: new Map(), diffs: new Map(), renames: new Map() };
  const m = repo.state.blame[key];
  if (m.size > MEMO_LIMIT) m.clear();
  return m;
}

async function commitMeta(repo: Repo, oid: string): Promise<CommitMeta> {
  const memo = memoMap(repo, 'commits');
  const hit = memo.get(oid);
  if (hit) return hit;
  const { commit } = await readCommit(repo, oid);
  const meta: CommitMeta = {
    oid,
    tree: commit.tree,
    parents: commit.parent,
    author: commit.author,
    committerTime: commit.committer.timestamp,
    summary: commit.message.split('\n')[0] ?? '',
  };
  memo.set(oid, meta);
  return meta;
}

type TreeLookups = Map<string, { oid: string; mode: number; type: string } | undefined>;

/** An entry of a tree by name, remembered per tree (only the names looked up, found or not). */
async function treeEntry(repo: Repo, tree: string, name: string) {
  const memo = memoMap(repo, 'trees');
  let entries = memo.get(tree);
  // '\0' (no name has it) marks a tree read whole: a name it lacks is absent.
  if (entries?.has(name) || entries?.has('\0')) return entries.get(name);
  const raw = repo.objects.read(tree);
  const e = raw?.type === 'tree' ? findTreeEntry(raw.data, name) : null;
  if (e === null) {
    // Not a plain tree: read it as isomorphic-git does (its order, its checks and errors), every name at once.
    const { tree: list } = await readTree(repo, tree);
    entries = new Map(list.map((t) => [t.path, { oid: t.oid, mode: Number.parseInt(t.mode, 8), type: t.type }]));
    entries.set('\0', undefined);
    memo.set(tree, entries);
    return entries.get(name);
  }
  if (!entries) {
    entries = new Map();
    memo.set(tree, entries);
  }
  const entry = e && { oid: e.oid, mode: Number.parseInt(e.mode, 8), type: e.type };
  entries.set(name, entry);
  return entry;
}

/** The blob at `path` in a tree (walking only the trees on the way), or null. */
async function blobAt(repo: Repo, tree: string, path: string): Promise<{ oid: string; mode: number } | null> {
  let current = tree;
  const parts = path.split('/');
  for (let i = 0; i < parts.length; i++) {
    const e = await treeEntry(repo, current, parts[i]!);
    if (!e) return null;
    if (i === parts.length - 1) return e.type === 'blob' ? { oid: e.oid, mode: e.mode } : null;
    if (e.type !== 'tree') return null;
    current = e.oid;
  }
  return null;
}

/**
 * The line tables of the blobs one blame is working on: loaded when first needed, dropped (`keepOnly`)
 * once no waiting origin has that blob. Only line counts and diffs are remembered across calls (per
 * repository), not the contents: those would keep every revision of a large file in memory.
 */
function blobTables(repo: Repo) {
  const tables = new Map<string, LineTable>();
  const counts = memoMap(repo, 'counts');
  const table = async (oid: string): Promise<LineTable> => {
    let t = tables.get(oid);
    if (!t) {
      t = lineTable(bytesToByteString(await readBlob(repo, oid)));
      tables.set(oid, t);
      counts.set(oid, t.n);
    }
    return t;
  };
  return {
    table,
    count: async (oid: string): Promise<number> => counts.get(oid) ?? (await table(oid)).n,
    keepOnly(oids: Set<string>): void {
      for (const oid of tables.keys()) if (!oids.has(oid)) tables.delete(oid);
    },
  };
}

/** git blame's diff of a parent's blob against a child's: no context, so the common tail is trimmed first. */
async function blobChanges(repo: Repo, tables: ReturnType<typeof blobTables>, parentBlob: string, blob: string): Promise<Change[]> {
  const memo = memoMap(repo, 'diffs');
  const key = `${parentBlob}:${blob}`;
  let changes = memo.get(key);
  if (!changes) {
    const a = (await tables.table(parentBlob)).text;
    const b = (await tables.table(blob)).text;
    const cut = commonTailCut(a, b);
    changes = diffTables(lineTable(a, a.length - cut), lineTable(b, b.length - cut));
    memo.set(key, changes);
  }
  return changes;
}

/** Where the file came from in `parent` when `path` is not there: a rename found like git diff -M does. */
async function renamedFrom(repo: Repo, parent: CommitMeta, child: CommitMeta, path: string): Promise<string | null> {
  const memo = memoMap(repo, 'renames');
  const key = `${parent.oid}:${child.oid}:${path}`;
  if (memo.has(key)) return memo.get(key)!;
  const pairs = await compareTrees(repo, parent.oid, child.oid, { renames: true });
  const pair = pairs.find((p) => p.new?.path === path && p.old !== null && p.old.path !== path);
  const found = pair?.old?.path ?? null;
  memo.set(key, found);
  return found;
}

/**
 * Blames lines `[from, to)` (0-based) of `path` at `commitOid`, and counts the file's lines. Returns null
 * when the path is not a file there.
 */
export async function blame(
  repo: Repo,
  commitOid: string,
  path: string,
  range?: { from: number; to: number },
  signal?: AbortSignal,
): Promise<{ total: number; blamed: BlameLine[] } | null> {
  const top = await commitMeta(repo, commitOid);
  const start = await blobAt(repo, top.tree, path);
  if (!start) return null;
  const tables = blobTables(repo);
  const final = await tables.table(start.oid);
  const from = range?.from ?? 0;
  const to = Math.min(range?.to ?? final.n, final.n);
  // Per final line: who it was settled on (an index into `settled`, -1: not yet) and its line there.
  const settled: { commit: CommitMeta; path: string; boundary: boolean }[] = [];
  const by = new Int32Array(final.n).fill(-1);
  const origLine = new Int32Array(final.n);
  const queue = new Map<string, Origin>();
  if (to > from) {
    const lines = Int32Array.from({ length: to - from }, (_, i) => from + i);
    queue.set(`${top.oid}\0${path}`, { commit: top, path, blob: start.oid, orig: lines, fin: lines });
  }

  const passTo = (commit: CommitMeta, p: string, blob: string, orig: Int32Array, fin: Int32Array) => {
    const key = `${commit.oid}\0${p}`;
    const there = queue.get(key);
    if (there) mergeLines(there, orig, fin);
    else queue.set(key, { commit, path: p, blob, orig, fin });
  };
  const settle = (o: Origin, boundary: boolean) => {
    if (o.orig.length === 0) return;
    settled.push({ commit: o.commit, path: o.path, boundary });
    for (let i = 0; i < o.orig.length; i++) {
      by[o.fin[i]!] = settled.length - 1;
      origLine[o.fin[i]!] = o.orig[i]!;
    }
  };

  while (queue.size > 0) {
    signal?.throwIfAborted();
    // Newest commit first (git's blame queue order).
    let key = '';
    let origin: Origin | null = null;
    for (const [k, o] of queue) {
      if (!origin || o.commit.committerTime > origin.commit.committerTime) {
        origin = o;
        key = k;
      }
    }
    queue.delete(key);
    const o = origin!;
    if (o.commit.parents.length === 0) {
      settle(o, true);
      continue;
    }
    const parents: { meta: CommitMeta; path: string; blob: string }[] = [];
    for (const pOid of o.commit.parents) {
      let meta: CommitMeta;
      try {
        meta = await commitMeta(repo, pOid);
      } catch (error) {
        if (isObjectStoreError(error)) throw error;
        continue; // a missing parent (shallow history): the lines stay here
      }
      let p = o.path;
      let found = await blobAt(repo, meta.tree, p);
      if (!found) {
        const old = await renamedFrom(repo, meta, o.commit, o.path);
        if (old !== null) {
          p = old;
          found = await blobAt(repo, meta.tree, p);
        }
      }
      if (found) parents.push({ meta, path: p, blob: found.oid });
    }
    // A parent with the very same content takes everything.
    const same = parents.find((p) => p.blob === o.blob);
    if (same) {
      // o is out of the queue and never settled: its lines are handed on as they are.
      passTo(same.meta, same.path, same.blob, o.orig, o.fin);
      continue;
    }
    const mine = await tables.count(o.blob);
    for (const parent of parents) {
      if (o.orig.length === 0) break;
      const changes = await blobChanges(repo, tables, parent.blob, o.blob);
      // Walk the (ascending) lines against the changes: unchanged lines map to the parent with an offset.
      const n = o.orig.length;
      const movedOrig = new Int32Array(n);
      const movedFin = new Int32Array(n);
      const keptOrig = new Int32Array(n);
      const keptFin = new Int32Array(n);
      let moved = 0;
      let kept = 0;
      let ci = 0;
      let delta = 0;
      for (let i = 0; i < n; i++) {
        const line = o.orig[i]!;
        while (ci < changes.length && changes[ci]!.start2 + changes[ci]!.count2 <= line) {
          delta += changes[ci]!.count1 - changes[ci]!.count2;
          ci++;
        }
        const c = changes[ci];
        if ((c && line >= c.start2 && line < c.start2 + c.count2) || line >= mine) {
          keptOrig[kept] = line;
          keptFin[kept++] = o.fin[i]!;
        } else {
          movedOrig[moved] = line + delta;
          movedFin[moved++] = o.fin[i]!;
        }
      }
      if (moved > 0) {
        passTo(parent.meta, parent.path, parent.blob, movedOrig.subarray(0, moved), movedFin.subarray(0, moved));
        o.orig = keptOrig.subarray(0, kept);
        o.fin = keptFin.subarray(0, kept);
      }
    }
    settle(o, false);
    // This revision's contents are done with unless a waiting origin has the same blob.
    tables.keepOnly(new Set([...queue.values()].map((q) => q.blob)));
  }
  const blamed: BlameLine[] = [];
  for (let fin = from; fin < to; fin++) {
    const s = settled[by[fin]!];
    if (!s) continue;
    blamed.push({ line: fin + 1, orig_line: origLine[fin]! + 1, ...s, content: lineAt(final, fin) });
  }
  return { total: final.n, blamed };
}
