/** `git_status` (its definition: ../../tools/gitStatus.ts). */

import type { GitContext } from '../context.js';
import { rootTree } from '../diff/treeEntries.js';
import { treeIndexChanges } from '../diff/treeIndex.js';
import { type ChangeKind, type StatusView, type UnmergedKind, unmergedKind } from '../format/status.js';
import { branchState } from '../git/branchState.js';
import { configBool, excludesFile, repoConfig } from '../git/gitConfig.js';
import { loadIndex } from '../git/indexSnapshot.js';
import type { FileEntry } from '../git/objects.js';
import { comparePaths } from '../git/paths.js';
import { worktreeState } from '../git/worktreeState.js';
import type { Repo } from '../repo.js';

/** regular file, symlink and gitlink are different types; 644 ↔ 755 is a modification. */
function kindOf(from: FileEntry, to: FileEntry): ChangeKind {
  return from.mode >> 12 !== to.mode >> 12 ? 'typechange' : 'modified';
}

/** -unormal: a folder holding no tracked file is listed once as `dir/` instead of its files. */
function collapseUntracked(untracked: readonly string[], trackedDirs: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const path of untracked) {
    let shown = path;
    for (let slash = path.indexOf('/'); slash >= 0 && slash < path.length - 1; slash = path.indexOf('/', slash + 1)) {
      const dir = path.slice(0, slash);
      if (!trackedDirs.has(dir)) {
        shown = `${dir}/`;
        break;
      }
    }
    out.add(shown);
  }
  return [...out].sort(comparePaths);
}

/** The working tree's status: what `git status` shows (../format/status.ts renders it), as data. */
export interface StatusData extends StatusView {
  /** The current branch, null when HEAD is detached. */
  branch: string | null;
  detached: boolean;
  quotePath: boolean;
}

export async function status(repo: Repo, ctx: GitContext): Promise<StatusData> {
  const state = await branchState(repo);
  const index = loadIndex(repo);
  // HEAD's tree against the index folder by folder (no tree flattened; unchanged folders skipped by the cache-tree).
  const changes = await treeIndexChanges(repo, state.head ? await rootTree(repo, state.head) : null, index);
  const work = await worktreeState(repo, { excludesFile: excludesFile(repo, { env: ctx.env, home: ctx.home }) });

  const staged: { path: string; status: ChangeKind }[] = [];
  for (const { path, a, b } of changes) {
    if (!a) staged.push({ path, status: 'added' });
    else if (b) staged.push({ path, status: kindOf(a, b) });
    else if (!index.unmerged.has(path)) staged.push({ path, status: 'deleted' });
  }
  staged.sort((a, b) => comparePaths(a.path, b.path));
  const unmerged: { path: string; status: UnmergedKind }[] = [...index.unmerged]
    .sort((a, b) => comparePaths(a[0], b[0]))
    .map(([path, mask]) => ({ path, status: unmergedKind(mask) }));
  const unstaged: { path: string; status: ChangeKind }[] = [...work.changed]
    .sort((a, b) => comparePaths(a[0], b[0]))
    .map(([path, entry]) => ({ path, status: entry === null ? 'deleted' : kindOf(index.files.get(path)!, entry) }));
  return {
    branch: state.branch,
    detached: state.detached,
    headLine: state.headLine,
    initial: state.head === null,
    merging: state.merging,
    ...(state.upstream ? { upstream: state.upstream } : {}),
    staged,
    unmerged,
    unstaged,
    untracked: collapseUntracked(work.untracked, index.dirs),
    quotePath: configBool(repoConfig(repo).get('core.quotepath')?.at(-1), true),
  };
}
