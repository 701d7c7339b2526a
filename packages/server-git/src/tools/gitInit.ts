import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { loadEngine, repoPath } from './common.js';

const gitInitInput = {
  repo_path: repoPath.describe('Folder to create the repository in (created when missing; must be inside an allowed root)'),
  initial_branch: z
    .string()
    .nullable()
    .default(null)
    .meta({ title: 'Initial Branch' })
    .describe("Name of the first branch; default: init.defaultBranch from the user's git config, else master"),
};

export const gitInit = defineTool({
  name: 'git_init',
  title: 'Create a repository',
  description:
    'Create an empty git repository (with a work tree) in a folder inside the allowed roots; missing folders are created. Refused for existing repositories and for paths outside the roots.',
  input: gitInitInput,
  output: {
    path: z.string().describe('The work tree (real path)'),
    git_dir: z.string().describe('The new .git folder'),
    initial_branch: z.string(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ repo_path, initial_branch }, ctx: GitContext) => {
    const made = await (await loadEngine()).initRepository(ctx, repo_path, initial_branch);
    return structuredResult(made, `Initialized empty Git repository in ${made.git_dir}`);
  },
});
