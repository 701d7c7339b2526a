import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { openRepository, repoPath } from './common.js';

const gitCommitInput = {
  repo_path: repoPath,
  message: z.string().meta({ title: 'Message' }).describe('The commit message, stored verbatim'),
};

export const gitCommit = defineTool({
  name: 'git_commit',
  title: 'Commit the staged changes',
  description: 'Records changes to the repository',
  input: gitCommitInput,
  output: {
    hash: z.string().describe('The new commit (40 hex digits)'),
    branch: z.string().nullable().describe('The branch moved to it, null when HEAD is detached'),
    parents: z.array(z.string()).describe("The commit's parents (HEAD, plus MERGE_HEAD during a merge)"),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ repo_path, message }, ctx: GitContext) => {
    const made = await (await openRepository(ctx, repo_path)).commit(message);
    return structuredResult(made, `Changes committed successfully with hash ${made.hash}`);
  },
});
