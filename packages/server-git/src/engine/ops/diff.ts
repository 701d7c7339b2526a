/** `git_diff_unstaged`, `git_diff_staged` and `git_diff` (their answers: ../../tools/gitDiff*.ts): two snapshots, one patch. */
import type { GitContext } from '../context.js';
import { type DiffPage, diffPage } from '../diff/diffTool.js';
import { guardDash, resolveObject } from '../diff/rev.js';
import { stagedSides, unstagedSides, worktreeSides } from '../diff/sides.js';
import { rootTree } from '../diff/treeEntries.js';
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
  const { from, to } = await unstagedSides(repo);
  return diffPage(repo, 'Unstaged changes', from, to, withDefaults(options), ctx.patchCache);
}

/** git diff --cached: HEAD's tree (empty on an unborn branch) against the index. */
export async function diffStaged(repo: Repo, options: DiffOptions, ctx: GitContext): Promise<DiffPage> {
  const head = await headCommit(repo);
  const { from, to } = await stagedSides(repo, head === null ? null : await rootTree(repo, head));
  return diffPage(repo, 'Staged changes', from, to, withDefaults(options), ctx.patchCache);
}

/** git diff <target>: the target's tree against the work tree (tracked files). */
export async function diffWith(repo: Repo, target: string, options: DiffOptions, ctx: GitContext): Promise<DiffPage> {
  guardDash(target, 'target');
  const tree = await resolveObject(repo, target, { kind: 'tree' });
  const { from, to } = await worktreeSides(repo, tree);
  return diffPage(repo, `Diff with ${target}`, from, to, withDefaults(options), ctx.patchCache);
}
