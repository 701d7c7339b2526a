/**
 * A tree (HEAD's, a target's) against the index without flattening either: the index's entries are in
 * path order, so each folder's entries are one run of them, compared with that folder's tree entries;
 * a folder whose cache-tree (../git/cacheTree.ts) records the very subtree the tree has is skipped
 * without reading it, as git's unpack_trees does, and the other folders are read one by one.
 */
import type { IndexSnapshot } from '../git/indexSnapshot.js';
import type { FileEntry } from '../git/objects.js';
import type { Repo } from '../repo.js';
import { fileEntry, type TreeEntries, treeEntries } from './treeEntries.js';

/** A path whose file differs: the tree's entry (a) and the index's stage-0 entry (b); null for none. */
export interface PathChange {
  path: string;
  a: FileEntry | null;
  b: FileEntry | null;
}

const NO_ENTRIES: TreeEntries = new Map();

/** Every file under a tree, as a-only changes (a folder the index does not have). */
async function allOf(repo: Repo, tree: string, prefix: string, out: PathChange[]): Promise<void> {
  for (const [name, e] of await treeEntries(repo, tree)) {
    const path = prefix + name;
    if (e.type === 'tree') await allOf(repo, e.oid, `${path}/`, out);
    else out.push({ path, a: fileEntry(path, e), b: null });
  }
}

/** Compares the tree `tree` (null: none) with the index entries `[lo, hi)`, all under `prefix` ('' or `dir/`). */
async function walk(repo: Repo, index: IndexSnapshot, tree: string | null, prefix: string, lo: number, hi: number, out: PathChange[]) {
  const { entries, cacheTree } = index.parsed;
  const te = tree === null ? NO_ENTRIES : await treeEntries(repo, tree);
  const seen = new Set<string>();
  let i = lo;
  while (i < hi) {
    const path = entries[i]!.path;
    const slash = path.indexOf('/', prefix.length);
    if (slash < 0) {
      // A file (all its stages): compared with the tree's entry of that name.
      let j = i + 1;
      while (j < hi && entries[j]!.path === path) j++;
      const name = path.slice(prefix.length);
      seen.add(name);
      const t = te.get(name);
      const a = fileEntry(path, t);
      const b = index.files.get(path) ?? null;
      if (a && b ? a.oid !== b.oid || a.mode !== b.mode : a || b) out.push({ path, a, b });
      if (t?.type === 'tree') await allOf(repo, t.oid, `${path}/`, out);
      i = j;
      continue;
    }
    const dir = path.slice(0, slash);
    const sub = `${dir}/`;
    const name = dir.slice(prefix.length);
    seen.add(name);
    const t = te.get(name);
    const subtree = t?.type === 'tree' ? t.oid : null;
    // The cache-tree says the index's entries under `dir` make exactly this subtree: nothing differs there.
    const cached = subtree === null ? undefined : cacheTree?.get(dir);
    if (cached?.oid === subtree && isRun(index, sub, i, i + cached!.count, hi)) {
      i += cached!.count;
      continue;
    }
    let j = i + 1;
    while (j < hi && entries[j]!.path.startsWith(sub)) j++;
    if (t && t.type !== 'tree') out.push({ path: dir, a: fileEntry(dir, t), b: index.files.get(dir) ?? null });
    await walk(repo, index, subtree, sub, i, j, out);
    i = j;
  }
  for (const [name, t] of te) {
    if (seen.has(name)) continue;
    const path = prefix + name;
    if (t.type === 'tree') await allOf(repo, t.oid, `${path}/`, out);
    else out.push({ path, a: fileEntry(path, t), b: null });
  }
}

/** Are the entries `[from, to)` (to ≤ hi) exactly the run of those under `sub`? (A cache-tree count is checked, not trusted.) */
function isRun(index: IndexSnapshot, sub: string, from: number, to: number, hi: number): boolean {
  const { entries } = index.parsed;
  if (to <= from || to > hi) return false;
  return entries[to - 1]!.path.startsWith(sub) && (to === hi || !entries[to]!.path.startsWith(sub));
}

/** Results kept per parsed index (a new index file is a new snapshot) and tree, while the index is held. */
const memo = new WeakMap<IndexSnapshot, Map<string | null, PathChange[]>>();
const MEMO_TREES = 4;
const MEMO_CHANGES_MAX = 20_000;

/**
 * The paths whose stage-0 index entry differs from the file of `tree` (a root tree oid; null: no tree),
 * in no particular order. An unmerged path shows with `b` null. Callers must not modify the answer.
 */
export async function treeIndexChanges(repo: Repo, tree: string | null, index: IndexSnapshot): Promise<PathChange[]> {
  let kept = memo.get(index);
  const hit = kept?.get(tree);
  if (hit) return hit;
  const out: PathChange[] = [];
  const n = index.parsed.entries.length;
  const root = index.parsed.cacheTree?.get('');
  if (!(tree !== null && root?.oid === tree && root.count === n)) await walk(repo, index, tree, '', 0, n, out);
  if (out.length <= MEMO_CHANGES_MAX) {
    if (!kept) {
      kept = new Map();
      memo.set(index, kept);
    }
    if (kept.size >= MEMO_TREES) kept.delete(kept.keys().next().value as string | null);
    kept.set(tree, out);
  }
  return out;
}
