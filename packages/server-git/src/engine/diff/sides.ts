/**
 * The two sides of git_diff_staged, git_diff_unstaged and git_diff as snapshots of the paths that may
 * differ only (comparePairs then pairs them exactly as it pairs whole snapshots: paths equal on both
 * sides are left out either way). Which paths: a tree against the index from treeIndex.ts (no tree
 * flattened), and the work-tree files whose content differs from the index (worktreeState.ts).
 */
import { loadIndex } from '../git/indexSnapshot.js';
import type { FileEntry } from '../git/objects.js';
import { readWorktreeFile, worktreeState } from '../git/worktreeState.js';
import type { Repo } from '../repo.js';
import { blobLoader, type Snapshot } from './changes.js';
import { treeIndexChanges } from './treeIndex.js';

export interface Sides {
  from: Snapshot;
  to: Snapshot;
}

function putObject(repo: Repo, snap: Snapshot, e: FileEntry | null): void {
  if (e) snap.set(e.path, { ...e, load: blobLoader(repo, e) });
}

function putWorktree(repo: Repo, snap: Snapshot, e: FileEntry): void {
  const { path } = e;
  snap.set(path, { ...e, load: () => readWorktreeFile(repo, path) });
}

/** git diff --cached: the tree (HEAD's root tree; null on an unborn branch) against the index. */
export async function stagedSides(repo: Repo, tree: string | null): Promise<Sides> {
  const from: Snapshot = new Map();
  const to: Snapshot = new Map();
  for (const c of await treeIndexChanges(repo, tree, loadIndex(repo))) {
    putObject(repo, from, c.a);
    putObject(repo, to, c.b);
  }
  return { from, to };
}

/** git diff: the index against the work tree (tracked files). */
export async function unstagedSides(repo: Repo): Promise<Sides> {
  const index = loadIndex(repo);
  const { changed } = await worktreeState(repo, { untracked: false });
  const from: Snapshot = new Map();
  const to: Snapshot = new Map();
  for (const [path, e] of changed) {
    putObject(repo, from, index.files.get(path) ?? null);
    if (e) putWorktree(repo, to, e);
  }
  return { from, to };
}

/** git diff <tree>: the tree (a root tree oid) against the work tree (tracked files). */
export async function worktreeSides(repo: Repo, tree: string): Promise<Sides> {
  const index = loadIndex(repo);
  const [staged, { changed }] = await Promise.all([treeIndexChanges(repo, tree, index), worktreeState(repo, { untracked: false })]);
  const from: Snapshot = new Map();
  const to: Snapshot = new Map();
  for (const c of staged) {
    putObject(repo, from, c.a);
    if (!changed.has(c.path)) putObject(repo, to, c.b);
  }
  const inStaged = new Set(staged.map((c) => c.path));
  for (const [path, e] of changed) {
    // Not a staged change: the tree's file there is the index's.
    if (!inStaged.has(path)) putObject(repo, from, index.files.get(path) ?? null);
    if (e) putWorktree(repo, to, e);
  }
  return { from, to };
}
