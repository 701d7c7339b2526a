/** `git_diff_unstaged`, `git_diff_staged` and `git_diff` (their answers: ../../tools/gitDiff*.ts): two snapshots, one patch. */
import type { GitContext } from '../context.js';
import { indexSnapshot, treeSnapshot, worktreeSnapshot } from '../diff/changes.js';
import { type DiffPage, diffPage } from '../diff/diffTool.js';
import { guardDash, resolveObject } from '../diff/rev.js';
import { headCommit } from '../git/objects.js';
import type { Repo } from '../repo.js';

/** What the three diffs take (context, paths, paging). */
export interface DiffOptions {
  context_lines?: number | undefined;
  paths?: string[] | undefined;
  max_bytes?: number | undefined;
  cursor?: string | undefined;
}

const withDefaults = ({ context_lines = 3, ...rest }: DiffOptions) => ({ context_lines, ...rest });

/** git diff: the index against the work tree, tracked files only. */
export async function diffUnstaged(repo: Repo, options: DiffOptions, ctx: GitContext): Promise<DiffPage> {
  return diffPage(repo, 'Unstaged changes', await indexSnapshot(repo), await worktreeSnapshot(repo), withDefaults(options), ctx.patchCache);
}

/** git diff --cached: HEAD's tree (empty on an unborn branch) against the index. */
export async function diffStaged(repo: Repo, options: DiffOptions, ctx: GitContext): Promise<DiffPage> {
  const head = await treeSnapshot(repo, await headCommit(repo));
  return diffPage(repo, 'Staged changes', head, await indexSnapshot(repo), withDefaults(options), ctx.patchCache);
}

/** git diff <target>: the target's tree against the work tree (tracked files). */
export async function diffWith(repo: Repo, target: string, options: DiffOptions, ctx: GitContext): Promise<DiffPage> {
  guardDash(target, 'target');
  const tree = await resolveObject(repo, target, { kind: 'tree' });
  return diffPage(
    repo,
    `Diff with ${target}`,
    await treeSnapshot(repo, tree),
    await worktreeSnapshot(repo),
    withDefaults(options),
    ctx.patchCache,
  );
}
