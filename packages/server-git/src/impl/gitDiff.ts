/** The implementation of `gitDiff` (loaded on its first call; the definition is in ../tools). */

import type { GitContext } from '../context.js';
import { treeSnapshot, worktreeSnapshot } from '../diff/changes.js';
import { diffResult } from '../diff/diffTool.js';
import { guardDash, resolveObject } from '../diff/rev.js';
import { openRepo } from '../repo.js';
import type { gitDiffInput } from '../tools/gitDiff.js';
import type { ToolArgs } from './types.js';

export async function run({ repo_path, target, ...args }: ToolArgs<typeof gitDiffInput>, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  guardDash(target, 'target');
  // git diff <target>: the target's tree against the work tree (tracked files).
  const tree = await resolveObject(repo, target, { kind: 'tree' });
  return diffResult(repo, `Diff with ${target}`, await treeSnapshot(repo, tree), await worktreeSnapshot(repo), args, ctx.patchCache);
}
