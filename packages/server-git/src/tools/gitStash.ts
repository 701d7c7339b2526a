import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../context.js';
import { identityFor } from '../refs/identity.js';
import { stashPop, stashPush } from '../refs/stash.js';
import { openRepo } from '../repo.js';
import { repoPath } from './common.js';

export const gitStash = defineTool({
  name: 'git_stash',
  title: 'Stash or restore changes',
  description:
    "push: saves the staged and unstaged changes of tracked files as a new stash entry (like git stash push [-m message]) and resets them to HEAD; untracked files stay. pop: restores stash@{0} and drops it (like git stash pop), only when that needs no merge. Entries are git's own, so the git CLI sees them.",
  input: {
    repo_path: repoPath,
    action: z.enum(['push', 'pop']).meta({ title: 'Action' }).describe("'push' saves changes, 'pop' restores the newest entry"),
    message: z.string().optional().meta({ title: 'Message' }).describe('Description of the entry (push only)'),
  },
  output: {
    action: z.enum(['push', 'pop']),
    stash: z.string().describe('The stash commit saved or restored'),
    message: z.string().describe('The entry as git stash list shows it after the colon'),
    files: z.array(z.string()).describe('Paths saved or restored'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ repo_path, action, message }, ctx: GitContext) => {
    const repo = await openRepo(ctx, repo_path);
    if (action === 'push') {
      const identity = identityFor(repo, ctx, 'committer');
      const saved = await stashPush(repo, identity, message);
      return structuredResult(
        { action, stash: saved.oid, message: saved.message, files: saved.paths },
        `Saved working directory and index state ${saved.message}`,
      );
    }
    const popped = await stashPop(repo);
    return structuredResult(
      { action, stash: popped.oid, message: popped.message, files: popped.paths },
      `Restored ${popped.paths.join(', ')}\nDropped refs/stash@{0} (${popped.oid})`,
    );
  },
});
