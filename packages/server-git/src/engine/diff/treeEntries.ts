/** Tree objects as the folder-by-folder comparisons read them: a commit's root tree, a tree's entries by name. */
import { OBJECT_OVERHEAD, stringBytes } from '../cacheBudget.js';
import { readObjectParsed, readTree } from '../git/objectRead.js';
import type { FileEntry } from '../git/objects.js';
import type { Repo } from '../repo.js';

export type TreeEntries = Map<string, { oid: string; mode: string; type: string }>;

/** The root tree of a commit or tree, memoized within the memory budget (objects never change). */
export async function rootTree(repo: Repo, oid: string): Promise<string> {
  const roots = repo.held.part<string>('roots');
  const hit = roots.get(oid);
  if (hit) return hit;
  const { type, object } = await readObjectParsed(repo, oid);
  const tree = type === 'commit' ? (object as { tree: string }).tree : oid;
  roots.set(oid, tree, 2 * OBJECT_OVERHEAD + 112);
  return tree;
}

/** A tree object's entries by name, memoized by oid within the memory budget. */
export async function treeEntries(repo: Repo, oid: string): Promise<TreeEntries> {
  const kept = repo.held.part<TreeEntries>('treeEntries');
  const hit = kept.get(oid);
  if (hit) return hit;
  const { tree } = await readTree(repo, oid);
  const entries: TreeEntries = new Map(tree.map((e) => [e.path, { oid: e.oid, mode: e.mode, type: e.type }]));
  let bytes = OBJECT_OVERHEAD;
  for (const name of entries.keys()) bytes += 2 * OBJECT_OVERHEAD + 56 + stringBytes(name);
  kept.set(oid, entries, bytes);
  return entries;
}

/** A tree entry as the flattened trees (../git/objects.ts treeFiles) hold it; null for none or a folder. */
export const fileEntry = (path: string, e: { oid: string; mode: string; type: string } | undefined): FileEntry | null =>
  e && e.type !== 'tree' ? { path, oid: e.oid, mode: Number.parseInt(e.mode, 8) } : null;
