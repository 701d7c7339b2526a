import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { loadEngine, repoPath } from './common.js';

export const gitStashInput = {
  repo_path: repoPath,
  action: z.enum(['push', 'pop']).meta({ title: 'Action' }).describe("'push' saves changes, 'pop' restores the newest entry"),
  message: z.string().optional().meta({ title: 'Message' }).describe('Description of the entry (push only)'),
};

export const gitStash = defineTool({
  name: 'git_stash',
  title: 'Stash or restore changes',
  description:
    "push: saves the staged and unstaged changes of tracked files as a new stash entry (like git stash push [-m message]) and resets them to HEAD; untracked files stay. pop: restores stash@{0} and drops it (like git stash pop), only when that needs no merge. Entries are git's own, so the git CLI sees them.",
  input: gitStashInput,
  output: {
    action: z.enum(['push', 'pop']),
    stash: z.string().describe('The stash commit saved or restored'),
    message: z.string().describe('The entry as git stash list shows it after the colon'),
    files: z.array(z.string()).describe('Paths saved or restored'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (args, ctx: GitContext) => (await loadEngine()).stash(args, ctx),
});
