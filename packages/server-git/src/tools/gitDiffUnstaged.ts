import { defineTool } from '@mcpkit/protocol-core';
import type { GitContext } from '../context.js';
import { indexSnapshot, worktreeSnapshot } from '../diff/changes.js';
import { diffOutput, diffResult, pagingInputs, pathsInput } from '../diff/diffTool.js';
import { openRepo } from '../repo.js';
import { contextLines, READ_ONLY, repoPath } from './common.js';

export const gitDiffUnstaged = defineTool({
  name: 'git_diff_unstaged',
  title: 'Show unstaged changes',
  description: 'Shows changes in the working directory that are not yet staged',
  input: { repo_path: repoPath, context_lines: contextLines, paths: pathsInput, ...pagingInputs },
  output: diffOutput,
  annotations: READ_ONLY,
  handler: async ({ repo_path, ...args }, ctx: GitContext) => {
    const repo = await openRepo(ctx, repo_path);
    // git diff: the index against the work tree, tracked files only.
    return diffResult(repo, 'Unstaged changes', await indexSnapshot(repo), await worktreeSnapshot(repo), args);
  },
});
