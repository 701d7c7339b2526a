import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { loadEngine, READ_ONLY } from './common.js';

export const gitBranchInput = {
  repo_path: z.string().meta({ title: 'Repo Path' }).describe('The path to the Git repository.'),
  branch_type: z
    .string()
    .meta({ title: 'Branch Type' })
    .describe("Whether to list local branches ('local'), remote branches ('remote') or all branches('all')."),
  contains: z
    .string()
    .nullable()
    .default(null)
    .meta({ title: 'Contains' })
    .describe('The commit sha that branch should contain. Do not pass anything to this param if no commit sha is specified'),
  not_contains: z
    .string()
    .nullable()
    .default(null)
    .meta({ title: 'Not Contains' })
    .describe('The commit sha that branch should NOT contain. Do not pass anything to this param if no commit sha is specified'),
};

export const gitBranch = defineTool({
  name: 'git_branch',
  title: 'List branches',
  description: 'List Git branches',
  input: gitBranchInput,
  output: {
    branches: z
      .array(
        z.object({
          name: z.string().describe('As git branch prints it (origin/main with remote, remotes/origin/main with all)'),
          current: z.boolean(),
          remote: z.boolean(),
          commit: z.string().describe('Commit at the tip'),
        }),
      )
      .describe('The listed branches, in git branch order'),
  },
  annotations: READ_ONLY,
  handler: async (args, ctx: GitContext) => (await loadEngine()).branches(args, ctx),
});
