import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { loadEngine, repoPath } from './common.js';

export const gitCommitInput = {
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
  handler: async (args, ctx: GitContext) => (await loadEngine()).commit(args, ctx),
});
