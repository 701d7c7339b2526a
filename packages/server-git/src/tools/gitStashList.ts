import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { loadEngine, READ_ONLY, repoPath } from './common.js';

export const gitStashListInput = { repo_path: repoPath };

export const gitStashList = defineTool({
  name: 'git_stash_list',
  title: 'List stash entries',
  description: 'Lists the stash entries, newest first, like git stash list',
  input: gitStashListInput,
  output: {
    entries: z
      .array(z.object({ name: z.string().describe('stash@{N}'), commit: z.string(), message: z.string() }))
      .describe('Stash entries, stash@{0} first'),
  },
  annotations: READ_ONLY,
  handler: async (args, ctx: GitContext) => (await loadEngine()).stashList(args, ctx),
});
