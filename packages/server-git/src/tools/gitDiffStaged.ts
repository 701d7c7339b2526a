import { defineTool } from '@mcpkit/protocol-core';
import type { GitContext } from '../engine/context.js';
import { contextLines, openRepository, READ_ONLY, repoPath } from './common.js';
import { diffOutput, pagingInputs, pathsInput } from './diffSchemas.js';
import { diffAnswer } from './patchAnswer.js';

const gitDiffStagedInput = { repo_path: repoPath, context_lines: contextLines, paths: pathsInput, ...pagingInputs };

export const gitDiffStaged = defineTool({
  name: 'git_diff_staged',
  title: 'Show staged changes',
  description: 'Shows changes that are staged for commit',
  input: gitDiffStagedInput,
  output: diffOutput,
  annotations: READ_ONLY,
  handler: async ({ repo_path, ...options }, ctx: GitContext) =>
    diffAnswer('Staged changes', await (await openRepository(ctx, repo_path)).diffStaged(options)),
});
