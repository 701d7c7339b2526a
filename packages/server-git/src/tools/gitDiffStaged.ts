import { defineTool } from '@mcpkit/protocol-core';
import type { GitContext } from '../context.js';
import { indexSnapshot, treeSnapshot } from '../diff/changes.js';
import { diffOutput, diffResult, pagingInputs, pathsInput } from '../diff/diffTool.js';
import { headCommit } from '../git/snapshot.js';
import { openRepo } from '../repo.js';
import { contextLines, READ_ONLY, repoPath } from './common.js';

export const gitDiffStaged = defineTool({
  name: 'git_diff_staged',
  title: 'Show staged changes',
  description: 'Shows changes that are staged for commit',
  input: { repo_path: repoPath, context_lines: contextLines, paths: pathsInput, ...pagingInputs },
  output: diffOutput,
  annotations: READ_ONLY,
  handler: async ({ repo_path, ...args }, ctx: GitContext) => {
    const repo = await openRepo(ctx, repo_path);
    // git diff --cached: HEAD's tree (empty on an unborn branch) against the index.
    const head = await treeSnapshot(repo, await headCommit(repo));
    return diffResult(repo, 'Staged changes', head, await indexSnapshot(repo), args);
  },
});
