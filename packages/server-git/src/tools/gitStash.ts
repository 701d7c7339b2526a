import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { openRepository, repoPath } from './common.js';

const gitStashInput = {
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
  handler: async ({ repo_path, ...options }, ctx: GitContext) => {
    const entry = await (await openRepository(ctx, repo_path)).stash(options);
    return structuredResult(
      entry,
      entry.action === 'push'
        ? `Saved working directory and index state ${entry.message}`
        : `Restored ${entry.files.join(', ')}\nDropped refs/stash@{0} (${entry.stash})`,
    );
  },
});
