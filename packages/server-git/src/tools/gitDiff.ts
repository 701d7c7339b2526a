import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../context.js';
import { treeSnapshot, worktreeSnapshot } from '../diff/changes.js';
import { diffOutput, diffResult, pagingInputs, pathsInput } from '../diff/diffTool.js';
import { guardDash, resolveObject } from '../diff/rev.js';
import { openRepo } from '../repo.js';
import { contextLines, READ_ONLY, repoPath } from './common.js';

export const gitDiff = defineTool({
  name: 'git_diff',
  title: 'Compare with a branch or commit',
  description: 'Shows differences between branches or commits',
  input: {
    repo_path: repoPath,
    target: z
      .string()
      .meta({ title: 'Target' })
      .describe('Branch, tag or commit to compare the work tree with (HEAD, main, v1.0, a sha, HEAD~2, …)'),
    context_lines: contextLines,
    paths: pathsInput,
    ...pagingInputs,
  },
  output: diffOutput,
  annotations: READ_ONLY,
  handler: async ({ repo_path, target, ...args }, ctx: GitContext) => {
    const repo = await openRepo(ctx, repo_path);
    guardDash(target, 'target');
    // git diff <target>: the target's tree against the work tree (tracked files).
    const tree = await resolveObject(repo, target, { kind: 'tree' });
    return diffResult(repo, `Diff with ${target}`, await treeSnapshot(repo, tree), await worktreeSnapshot(repo), args);
  },
});
