import { defineTool } from '@mcpkit/protocol-core';
import type { GitContext } from '../engine/context.js';
import { contextLines, openRepository, READ_ONLY, repoPath } from './common.js';
import { diffOutput, pagingInputs, pathsInput } from './diffSchemas.js';
import { diffAnswer } from './patchAnswer.js';

const gitDiffUnstagedInput = { repo_path: repoPath, context_lines: contextLines, paths: pathsInput, ...pagingInputs };

export const gitDiffUnstaged = defineTool({
  name: 'git_diff_unstaged',
  title: 'Show unstaged changes',
  description: 'Shows changes in the working directory that are not yet staged',
  input: gitDiffUnstagedInput,
  output: diffOutput,
  annotations: READ_ONLY,
  handler: async ({ repo_path, ...options }, ctx: GitContext) =>
    diffAnswer('Unstaged changes', await (await openRepository(ctx, repo_path)).diffUnstaged(options)),
});
