import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { contextLines, openRepository, READ_ONLY, repoPath } from './common.js';
import { diffOutput, pagingInputs, pathsInput } from './diffSchemas.js';
import { diffAnswer } from './patchAnswer.js';

const gitDiffInput = {
  repo_path: repoPath,
  target: z
    .string()
    .meta({ title: 'Target' })
    .describe('Branch, tag or commit to compare the work tree with (HEAD, main, v1.0, a sha, HEAD~2, …)'),
  context_lines: contextLines,
  paths: pathsInput,
  ...pagingInputs,
};

export const gitDiff = defineTool({
  name: 'git_diff',
  title: 'Compare with a branch or commit',
  description: 'Shows differences between branches or commits',
  input: gitDiffInput,
  output: diffOutput,
  annotations: READ_ONLY,
  handler: async ({ repo_path, target, ...options }, ctx: GitContext) =>
    diffAnswer(`Diff with ${target}`, await (await openRepository(ctx, repo_path)).diff(target, options)),
});
