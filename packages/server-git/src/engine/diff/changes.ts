/**
 * What changed between two snapshots of a repository (a tree, the index, the work tree), as the file
 * pairs `git diff` would print: path filter, rename detection, a type change (file ↔ symlink ↔
 * submodule) split into a deletion and an addition, in git's path order. Content is read lazily.
 */
import { OBJECT_OVERHEAD } from '../cacheBudget.js';
import { type FileEntry, readBlob, treeFiles } from '../git/objects.js';
import { comparePaths } from '../git/paths.js';
import type { Repo } from '../repo.js';
import type { Abbreviator } from './abbrev.js';
import { type DiffSide, type FilePatch, formatFilePatch } from './patch.js';
import { detectRenames } from './renames.js';
import { fileEntry, rootTree, type TreeEntries, treeEntries } from './treeEntries.js';

interface Entry extends FileEntry {
  load(): Promise<Uint8Array>;
}

export type Snapshot = Map<string, Entry>;

const GITLINK = 0o160000;

export function blobLoader(repo: Repo, e: FileEntry): () => Promise<Uint8Array> {
  if (e.mode === GITLINK) return async () => Buffer.from(`Subproject commit ${e.oid}\n`);
  return () => readBlob(repo, e.oid);
}

function fromObjects(repo: Repo, files: Map<string, FileEntry>): Snapshot {
  const out: Snapshot = new Map();
  for (const [path, e] of files) out.set(path, { ...e, path, load: blobLoader(repo, e) });
  return out;
}

/** What wrapping a file entry costs beyond the flattened tree's own (the entry copied, its loader closure, a Map slot). */
const WRAPPED_BYTES = 3 * OBJECT_OVERHEAD;
/** A tree snapshot → its root tree oid (null: the empty tree), for comparePairs' folder-by-folder walk. */
const treeOfSnapshot = new WeakMap<Snapshot, { repo: Repo; tree: string | null }>();

/** A commit's or tree's files. The snapshot is shared (memoized by tree): callers must not modify it. */
export async function treeSnapshot(repo: Repo, oid: string | null): Promise<Snapshot> {
  if (oid === null) {
    const empty: Snapshot = new Map();
    treeOfSnapshot.set(empty, { repo, tree: null });
    return empty;
  }
  const files = await treeFiles(repo, oid);
  // Wrapped once per flattened tree (the same map object while the budget keeps it).
  const wrapped = repo.held.part<{ files: Map<string, FileEntry>; snap: Snapshot }>('treeSnapshots');
  const tree = await rootTree(repo, oid);
  let snap = wrapped.get(tree)?.files === files ? wrapped.get(tree)!.snap : undefined;
  if (!snap) {
    snap = fromObjects(repo, files);
    wrapped.set(tree, { files, snap }, OBJECT_OVERHEAD + files.size * WRAPPED_BYTES);
  }
  if (!treeOfSnapshot.has(snap)) treeOfSnapshot.set(snap, { repo, tree });
  return snap;
}

/** A path the walk below found differing: its file entry on each side (null: none there, or a folder). */
interface ChangedPath {
  path: string;
  a: FileEntry | null;
  b: FileEntry | null;
}

/**
 * The paths that may differ between two trees, found folder by folder: a subtree whose oid is the
 * same on both sides is skipped, so only the differing subtrees are read. Each path comes with its
 * file entries as the flattened trees (../git/objects.ts treeFiles) hold them.
 */
async function changedTreePaths(repo: Repo, a: string | null, b: string | null, prefix: string, out: ChangedPath[]): Promise<void> {
  if (a === b) return;
  const ea: TreeEntries = a === null ? new Map() : await treeEntries(repo, a);
  const eb: TreeEntries = b === null ? new Map() : await treeEntries(repo, b);
  const subs: Promise<void>[] = [];
  const visit = (name: string) => {
    const x = ea.get(name);
    const y = eb.get(name);
    if (x && y && x.oid === y.oid && x.mode === y.mode) return;
    const path = prefix + name;
    const xt = x?.type === 'tree' ? x.oid : null;
    const yt = y?.type === 'tree' ? y.oid : null;
    if (xt !== null || yt !== null) subs.push(changedTreePaths(repo, xt, yt, `${path}/`, out));
    if ((x && x.type !== 'tree') || (y && y.type !== 'tree')) out.push({ path, a: fileEntry(path, x), b: fileEntry(path, y) });
  };
  for (const name of ea.keys()) visit(name);
  for (const name of eb.keys()) if (!ea.has(name)) visit(name);
  await Promise.all(subs);
}

export interface LazyPair {
  old: Entry | null;
  new: Entry | null;
  score?: number;
}

/** Does `path` fall under one of the pathspecs (a file, or a folder prefix; '' is everything)? */
function matchesPaths(path: string, specs: readonly string[] | undefined): boolean {
  if (!specs || specs.length === 0) return true;
  return specs.some((s) => s === '' || path === s || path.startsWith(`${s}/`));
}

const typeOf = (mode: number) => mode & 0o170000;

/** The pairs `git diff` prints between `from` and `to`, in its order. */
export async function comparePairs(
  from: Snapshot,
  to: Snapshot,
  options: { paths?: readonly string[]; renames?: boolean } = {},
): Promise<LazyPair[]> {
  const ta = treeOfSnapshot.get(from);
  const tb = treeOfSnapshot.get(to);
  let all: Iterable<string>;
  if (ta && tb && ta.repo === tb.repo) {
    const changed: ChangedPath[] = [];
    await changedTreePaths(ta.repo, ta.tree, tb.tree, '', changed);
    all = changed.map((c) => c.path);
  } else {
    all = new Set<string>([...from.keys(), ...to.keys()]);
  }
  return pairsOf(all, from, to, options);
}

/** The paths whose file differs between two commits or trees (null: the empty tree), read folder by folder as compareTrees does. */
export async function changedFiles(repo: Repo, from: string | null, to: string | null): Promise<string[]> {
  const changed: ChangedPath[] = [];
  const [ta, tb] = await Promise.all([from === null ? null : rootTree(repo, from), to === null ? null : rootTree(repo, to)]);
  await changedTreePaths(repo, ta, tb, '', changed);
  return changed.map((c) => c.path);
}

/**
 * comparePairs of two commits' or trees' snapshots (null: the empty tree), without flattening either:
 * only the subtrees that differ are read (a first `git_show` of a commit in a large tree reads a few
 * folders, not two whole trees).
 */
export async function compareTrees(
  repo: Repo,
  from: string | null,
  to: string | null,
  options: { paths?: readonly string[]; renames?: boolean } = {},
): Promise<LazyPair[]> {
  const changed: ChangedPath[] = [];
  const [ta, tb] = await Promise.all([from === null ? null : rootTree(repo, from), to === null ? null : rootTree(repo, to)]);
  await changedTreePaths(repo, ta, tb, '', changed);
  const a = new Map<string, FileEntry>();
  const b = new Map<string, FileEntry>();
  for (const c of changed) {
    if (c.a) a.set(c.path, c.a);
    if (c.b) b.set(c.path, c.b);
  }
  return pairsOf(
    changed.map((c) => c.path),
    fromObjects(repo, a),
    fromObjects(repo, b),
    options,
  );
}

async function pairsOf(
  all: Iterable<string>,
  from: Snapshot,
  to: Snapshot,
  options: { paths?: readonly string[]; renames?: boolean },
): Promise<LazyPair[]> {
  type Keyed = LazyPair & { key: string; order: number };
  const pairs: Keyed[] = [];
  const deleted: Keyed[] = [];
  const added: Keyed[] = [];
  for (const path of all) {
    if (!matchesPaths(path, options.paths)) continue;
    const a = from.get(path) ?? null;
    const b = to.get(path) ?? null;
    if (a && b && a.oid === b.oid && a.mode === b.mode) continue;
    if (a && b && typeOf(a.mode) !== typeOf(b.mode)) {
      pairs.push({ old: a, new: null, key: path, order: 0 }, { old: null, new: b, key: path, order: 1 });
      continue;
    }
    const pair: Keyed = { old: a, new: b, key: path, order: 0 };
    pairs.push(pair);
    if (!a) added.push(pair);
    else if (!b) deleted.push(pair);
  }
  if (options.renames !== false && added.length > 0 && deleted.length > 0) {
    deleted.sort((x, y) => comparePaths(x.key, y.key));
    added.sort((x, y) => comparePaths(x.key, y.key));
    const found = await detectRenames(
      deleted.map((p) => p.old!),
      added.map((p) => p.new!),
    );
    const drop = new Set<Keyed>();
    for (const r of found) {
      const d = added[r.dst]!;
      d.old = deleted[r.src]!.old;
      d.score = r.score;
      drop.add(deleted[r.src]!);
    }
    for (let i = pairs.length - 1; i >= 0; i--) if (drop.has(pairs[i]!)) pairs.splice(i, 1);
  }
  pairs.sort((x, y) => comparePaths(x.key, y.key) || x.order - y.order);
  return pairs.map(({ key: _key, order: _order, ...pair }) => pair);
}

const LOAD_CONCURRENCY = 24;

async function side(e: Entry | null): Promise<DiffSide | null> {
  return e ? { path: e.path, oid: e.oid, mode: e.mode, data: await e.load() } : null;
}

/** The patches of `pairs` (`git diff -U<context>`), index lines abbreviated by `abbrev`. */
export async function renderPatches(pairs: readonly LazyPair[], context: number, abbrev: Abbreviator): Promise<FilePatch[]> {
  const oids = new Set<string>();
  for (const p of pairs) {
    if (p.old) oids.add(p.old.oid);
    if (p.new) oids.add(p.new.oid);
  }
  oids.add('0000000000000000000000000000000000000000');
  // Abbreviations (a loose-object folder listing per id) are worked out in a few concurrent batches,
  // while the contents load; each id is abbreviated independently, so the answer does not change.
  const ids = [...oids];
  const batch = Math.ceil(ids.length / LOAD_CONCURRENCY);
  const prefetched: Promise<void>[] = [];
  for (let i = 0; i < ids.length; i += batch) prefetched.push(abbrev.prefetch(ids.slice(i, i + batch)));
  // Load the contents a few dozen at a time (blob reads overlap), then format in the pairs' order.
  const sides: [DiffSide | null, DiffSide | null][] = new Array(pairs.length);
  let next = 0;
  const worker = async () => {
    while (next < pairs.length) {
      const i = next++;
      const p = pairs[i]!;
      sides[i] = await Promise.all([side(p.old), side(p.new)]);
    }
  };
  await Promise.all([...prefetched, ...Array.from({ length: Math.min(LOAD_CONCURRENCY, pairs.length) }, worker)]);
  const out: FilePatch[] = [];
  for (let i = 0; i < pairs.length; i++) {
    const p = pairs[i]!;
    const [a, b] = sides[i]!;
    out.push(formatFilePatch({ old: a, new: b, ...(p.score !== undefined ? { score: p.score } : {}) }, { context, abbrev: abbrev.abbrev }));
  }
  return out;
}
