/** `git_diff_unstaged`, `git_diff_staged` and `git_diff` (their definitions: ../../tools/gitDiff*.ts): two snapshots, one patch. */
import type { GitContext } from '../context.js';
import { indexSnapshot, treeSnapshot, worktreeSnapshot } from '../diff/changes.js';
import { diffResult } from '../diff/diffTool.js';
import { guardDash, resolveObject } from '../diff/rev.js';
import { headCommit } from '../git/objects.js';
import { openRepo } from '../repo.js';

/** What the three diff tools take (context, paths, paging). */
export interface DiffArgs {
  repo_path: string;
  context_lines: number;
  paths?: string[] | undefined;
  max_bytes?: number | undefined;
  cursor?: string | undefined;
}

export async function diffUnstaged({ repo_path, ...args }: DiffArgs, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  // git diff: the index against the work tree, tracked files only.
  return diffResult(repo, 'Unstaged changes', await indexSnapshot(repo), await worktreeSnapshot(repo), args, ctx.patchCache);
}

export async function diffStaged({ repo_path, ...args }: DiffArgs, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  // git diff --cached: HEAD's tree (empty on an unborn branch) against the index.
  const head = await treeSnapshot(repo, await headCommit(repo));
  return diffResult(repo, 'Staged changes', head, await indexSnapshot(repo), args, ctx.patchCache);
}

export interface DiffWithArgs extends DiffArgs {
  target: string;
}

export async function diffWith({ repo_path, target, ...args }: DiffWithArgs, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  guardDash(target, 'target');
  // git diff <target>: the target's tree against the work tree (tracked files).
  const tree = await resolveObject(repo, target, { kind: 'tree' });
  return diffResult(repo, `Diff with ${target}`, await treeSnapshot(repo, tree), await worktreeSnapshot(repo), args, ctx.patchCache);
}
