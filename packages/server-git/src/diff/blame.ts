/**
 * Line blame as `git blame <rev> -- <file>` computes it: starting from the file at `rev`, lines are
 * passed to a parent while the parent has them (same blob: all of them; otherwise the lines outside the
 * changes of git's own zero-context diff), commits taken newest first (committer date) so that lines
 * reaching the same commit by different merge paths are handled together; renames are followed when the
 * path is missing in a parent. What no parent has is blamed on the commit. Nothing is written.
 */
import * as git from 'isomorphic-git';
import { readBlob } from '../git/snapshot.js';
import type { Repo } from '../repo.js';
import { comparePairs, treeSnapshot } from './changes.js';
import { type Change, diffLines, splitLines } from './lineDiff.js';
import { bytesToByteString, trimCommonTail } from './patch.js';

export interface CommitMeta {
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

interface Origin {
  commit: CommitMeta;
  path: string;
  blob: string;
  /** Line in this origin (0-based) → final line (0-based). */
  lines: Map<number, number>;
}

const MEMO_LIMIT = 4000;

function memoMap<V>(repo: Repo, key: string): Map<string, V> {
  let m = repo.memo.get(key) as Map<string, V> | undefined;
  if (!m) {
    m = new Map();
    repo.memo.set(key, m);
  }
  if (m.size > MEMO_LIMIT) m.clear();
  return m;
}

export async function commitMeta(repo: Repo, oid: string): Promise<CommitMeta> {
  const memo = memoMap<CommitMeta>(repo, 'blame:commits');
  const hit = memo.get(oid);
  if (hit) return hit;
  const { commit } = await git.readCommit({ ...repo.git, oid });
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

/** The blob at `path` in a tree (walking only the trees on the way), or null. */
export async function blobAt(repo: Repo, tree: string, path: string): Promise<{ oid: string; mode: number } | null> {
  const memo = memoMap<Map<string, { oid: string; mode: number; type: string }>>(repo, 'blame:trees');
  let current = tree;
  const parts = path.split('/');
  for (let i = 0; i < parts.length; i++) {
    let entries = memo.get(current);
    if (!entries) {
      const { tree: list } = await git.readTree({ ...repo.git, oid: current });
      entries = new Map(list.map((e) => [e.path, { oid: e.oid, mode: Number.parseInt(e.mode, 8), type: e.type }]));
      memo.set(current, entries);
    }
    const e = entries.get(parts[i]!);
    if (!e) return null;
    if (i === parts.length - 1) return e.type === 'blob' ? { oid: e.oid, mode: e.mode } : null;
    if (e.type !== 'tree') return null;
    current = e.oid;
  }
  return null;
}

async function blobLines(repo: Repo, oid: string): Promise<string[]> {
  const memo = memoMap<string[]>(repo, 'blame:lines');
  let lines = memo.get(oid);
  if (!lines) {
    lines = splitLines(bytesToByteString(await readBlob(repo, oid)));
    memo.set(oid, lines);
  }
  return lines;
}

/** git blame's diff of a parent's blob against a child's: no context, so the common tail is trimmed first. */
async function blobChanges(repo: Repo, parentBlob: string, blob: string): Promise<Change[]> {
  const memo = memoMap<Change[]>(repo, 'blame:diffs');
  const key = `${parentBlob}:${blob}`;
  let changes = memo.get(key);
  if (!changes) {
    const [a, b] = trimCommonTail((await blobLines(repo, parentBlob)).join(''), (await blobLines(repo, blob)).join(''));
    changes = diffLines(splitLines(a), splitLines(b));
    memo.set(key, changes);
  }
  return changes;
}

/** Where the file came from in `parent` when `path` is not there: a rename found like git diff -M does. */
async function renamedFrom(repo: Repo, parent: CommitMeta, child: CommitMeta, path: string): Promise<string | null> {
  const memo = memoMap<string | null>(repo, 'blame:renames');
  const key = `${parent.oid}:${child.oid}:${path}`;
  if (memo.has(key)) return memo.get(key)!;
  const pairs = await comparePairs(await treeSnapshot(repo, parent.oid), await treeSnapshot(repo, child.oid), { renames: true });
  const pair = pairs.find((p) => p.new?.path === path && p.old !== null && p.old.path !== path);
  const found = pair?.old?.path ?? null;
  memo.set(key, found);
  return found;
}

/**
 * Blames lines `[from, to)` (0-based) of `path` at `commitOid`. Returns null when the path is not a file there.
 */
export async function blame(
  repo: Repo,
  commitOid: string,
  path: string,
  range?: { from: number; to: number },
): Promise<{ lines: string[]; blamed: BlameLine[] } | null> {
  const top = await commitMeta(repo, commitOid);
  const start = await blobAt(repo, top.tree, path);
  if (!start) return null;
  const finalLines = await blobLines(repo, start.oid);
  const from = range?.from ?? 0;
  const to = Math.min(range?.to ?? finalLines.length, finalLines.length);
  const result: (BlameLine | undefined)[] = new Array(finalLines.length);
  const queue = new Map<string, Origin>();
  const initial: Origin = { commit: top, path, blob: start.oid, lines: new Map() };
  for (let i = from; i < to; i++) initial.lines.set(i, i);
  if (initial.lines.size > 0) queue.set(`${top.oid}\0${path}`, initial);

  const passTo = (commit: CommitMeta, p: string, blob: string, moves: [number, number][]) => {
    const key = `${commit.oid}\0${p}`;
    let o = queue.get(key);
    if (!o) {
      o = { commit, path: p, blob, lines: new Map() };
      queue.set(key, o);
    }
    for (const [orig, fin] of moves) o.lines.set(orig, fin);
  };
  const settle = (o: Origin, boundary: boolean) => {
    for (const [orig, fin] of o.lines) {
      result[fin] = { line: fin + 1, orig_line: orig + 1, commit: o.commit, path: o.path, boundary, content: finalLines[fin]! };
    }
  };

  while (queue.size > 0) {
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
      } catch {
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
      // o is out of the queue and never settled: its line map is handed on as is, not copied.
      const k = `${same.meta.oid}\0${same.path}`;
      const there = queue.get(k);
      if (there) for (const [orig, fin] of o.lines) there.lines.set(orig, fin);
      else queue.set(k, { commit: same.meta, path: same.path, blob: same.blob, lines: o.lines });
      continue;
    }
    const mine = await blobLines(repo, o.blob);
    for (const parent of parents) {
      if (o.lines.size === 0) break;
      const changes = await blobChanges(repo, parent.blob, o.blob);
      const moves: [number, number][] = [];
      const moved: number[] = [];
      // Walk the (sorted) lines against the changes: unchanged lines map to the parent with an offset.
      const sorted = [...o.lines.keys()].sort((x, y) => x - y);
      let ci = 0;
      let delta = 0;
      for (const line of sorted) {
        while (ci < changes.length && changes[ci]!.start2 + changes[ci]!.count2 <= line) {
          delta += changes[ci]!.count1 - changes[ci]!.count2;
          ci++;
        }
        const c = changes[ci];
        if (c && line >= c.start2 && line < c.start2 + c.count2) continue;
        if (line >= mine.length) continue;
        moves.push([line + delta, o.lines.get(line)!]);
        moved.push(line);
      }
      if (moves.length > 0) {
        passTo(parent.meta, parent.path, parent.blob, moves);
        for (const line of moved) o.lines.delete(line);
      }
    }
    settle(o, false);
  }
  return { lines: finalLines, blamed: result.slice(from, to).filter((x): x is BlameLine => x !== undefined) };
}
