import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { openRepository, repoPath } from './common.js';

/**
 * `repo.index.reset()` of the reference: the index becomes HEAD's tree (new files are unstaged, staged
 * changes dropped, conflicts cleared); the work tree is not touched. On an unborn branch the index is emptied.
 */
const gitResetInput = { repo_path: repoPath };

export const gitReset = defineTool({
  name: 'git_reset',
  title: 'Unstage all changes',
  description: 'Unstages all staged changes',
  input: gitResetInput,
  output: {
    unstaged: z.array(z.string()).describe('Paths whose index entry changed (now as in HEAD, or no longer in the index)'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async ({ repo_path }, ctx: GitContext) =>
    structuredResult(await (await openRepository(ctx, repo_path)).reset(), 'All staged changes reset'),
});
