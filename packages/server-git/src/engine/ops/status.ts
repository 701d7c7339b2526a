/** `git_status` (its definition: ../../tools/gitStatus.ts). */

import { structuredResult } from '@mcpkit/protocol-core';
import { ANSWER_CAP, capText, fitItems } from '../../limits.js';
import type { GitContext } from '../context.js';
import { type ChangeKind, formatStatus, type UnmergedKind, unmergedKind } from '../format/status.js';
import { branchState } from '../git/branchState.js';
import { configBool, excludesFile, repoConfig } from '../git/gitConfig.js';
import { loadIndex } from '../git/indexSnapshot.js';
import { type FileEntry, treeFiles } from '../git/objects.js';
import { comparePaths } from '../git/paths.js';
import { worktreeState } from '../git/worktreeState.js';
import { openRepo } from '../repo.js';

/** regular file, symlink and gitlink are different types; 644 ↔ 755 is a modification. */
function kindOf(from: FileEntry, to: FileEntry): ChangeKind {
  return from.mode >> 12 !== to.mode >> 12 ? 'typechange' : 'modified';
}

/** -unormal: a folder holding no tracked file is listed once as `dir/` instead of its files. */
export function collapseUntracked(untracked: readonly string[], trackedDirs: ReadonlySet<string>): string[] {
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

export interface StatusArgs {
  repo_path: string;
}

export async function status({ repo_path }: StatusArgs, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  const state = await branchState(repo);
  const head = state.head ? await treeFiles(repo, state.head) : new Map<string, FileEntry>();
  const index = loadIndex(repo);
  const work = await worktreeState(repo, { excludesFile: excludesFile(repo, { env: ctx.env, home: ctx.home }) });

  const staged: { path: string; status: ChangeKind }[] = [];
  for (const [path, i] of index.files) {
    const h = head.get(path);
    if (!h) staged.push({ path, status: 'added' });
    else if (h.oid !== i.oid || h.mode !== i.mode) staged.push({ path, status: kindOf(h, i) });
  }
  for (const path of head.keys()) if (!index.files.has(path) && !index.unmerged.has(path)) staged.push({ path, status: 'deleted' });
  staged.sort((a, b) => comparePaths(a.path, b.path));
  const unmerged: { path: string; status: UnmergedKind }[] = [...index.unmerged]
    .sort((a, b) => comparePaths(a[0], b[0]))
    .map(([path, mask]) => ({ path, status: unmergedKind(mask) }));
  const unstaged: { path: string; status: ChangeKind }[] = [...work.changed]
    .sort((a, b) => comparePaths(a[0], b[0]))
    .map(([path, entry]) => ({ path, status: entry === null ? 'deleted' : kindOf(index.files.get(path)!, entry) }));
  const untracked = collapseUntracked(work.untracked, index.dirs);

  const text = formatStatus({
    headLine: state.headLine,
    initial: state.head === null,
    merging: state.merging,
    upstream: state.upstream,
    staged,
    unmerged,
    unstaged,
    untracked,
    quotePath: configBool(repoConfig(repo).get('core.quotepath')?.at(-1), true),
  });
  const up = state.upstream;
  // A huge change set is capped (text and each list), with a notice: narrow it with git_diff paths or git_add.
  const quarter = ANSWER_CAP / 4;
  const capped = capText(text, 'Too many changes to list: narrow them down with git_diff_* paths, or commit/stash part of them.');
  return structuredResult(
    {
      branch: state.branch,
      detached: state.detached,
      ...(up ? { upstream: up.name, ...(up.gone ? { upstream_gone: true } : { ahead: up.ahead, behind: up.behind }) } : {}),
      merging: state.merging,
      staged: fitItems(staged, quarter),
      unmerged: fitItems(unmerged, quarter),
      unstaged: fitItems(unstaged, quarter),
      untracked: fitItems(untracked, quarter),
    },
    // GitPython strips the one trailing newline of git's output.
    `Repository status:\n${capped.capped || !capped.text.endsWith('\n') ? capped.text : capped.text.slice(0, -1)}`,
  );
}
