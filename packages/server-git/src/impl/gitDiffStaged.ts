/** The implementation of `gitDiffStaged` (loaded on its first call; the definition is in ../tools). */

import type { GitContext } from '../context.js';
import { indexSnapshot, treeSnapshot } from '../diff/changes.js';
import { diffResult } from '../diff/diffTool.js';
import { headCommit } from '../git/snapshot.js';
import { openRepo } from '../repo.js';
import type { gitDiffStagedInput } from '../tools/gitDiffStaged.js';
import type { ToolArgs } from './types.js';

export async function run({ repo_path, ...args }: ToolArgs<typeof gitDiffStagedInput>, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  // git diff --cached: HEAD's tree (empty on an unborn branch) against the index.
  const head = await treeSnapshot(repo, await headCommit(repo));
  return diffResult(repo, 'Staged changes', head, await indexSnapshot(repo), args, ctx.patchCache);
}
