import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { openRepository, repoPath } from './common.js';

const gitCreateBranchInput = {
  repo_path: repoPath,
  branch_name: z.string().meta({ title: 'Branch Name' }).describe('Name of the new branch'),
  base_branch: z
    .string()
    .nullable()
    .default(null)
    .meta({ title: 'Base Branch' })
    .describe('Branch, remote-tracking branch or tag to start from (default: the current branch)'),
};

export const gitCreateBranch = defineTool({
  name: 'git_create_branch',
  title: 'Create a branch',
  description: 'Creates a new branch from an optional base branch',
  input: gitCreateBranchInput,
  output: {
    branch: z.string().describe('Name of the branch'),
    base: z.string().describe('What it was created from'),
    commit: z.string().describe('The commit the branch points to'),
    created: z.boolean().describe('False when the branch already existed at that commit'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ repo_path, ...options }, ctx: GitContext) => {
    const made = await (await openRepository(ctx, repo_path)).createBranch(options);
    return structuredResult(made, `Created branch '${made.branch}' from '${made.base}'`);
  },
});
