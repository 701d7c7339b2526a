/** The implementation of `gitDiffUnstaged` (loaded on its first call; the definition is in ../tools). */

import type { GitContext } from '../context.js';
import { indexSnapshot, worktreeSnapshot } from '../diff/changes.js';
import { diffResult } from '../diff/diffTool.js';
import { openRepo } from '../repo.js';
import type { gitDiffUnstagedInput } from '../tools/gitDiffUnstaged.js';
import type { ToolArgs } from './types.js';

export async function run({ repo_path, ...args }: ToolArgs<typeof gitDiffUnstagedInput>, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  // git diff: the index against the work tree, tracked files only.
  return diffResult(repo, 'Unstaged changes', await indexSnapshot(repo), await worktreeSnapshot(repo), args, ctx.patchCache);
}
