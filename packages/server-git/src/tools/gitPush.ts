import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { loadEngine, repoPath } from './common.js';

export const gitPushInput = {
  repo_path: repoPath,
  remote: z.string().default('origin').meta({ title: 'Remote' }).describe('Name of a remote configured in the repository (default origin)'),
  branch: z.string().nullable().default(null).meta({ title: 'Branch' }).describe('Local branch to push; default: the current branch'),
  force: z
    .boolean()
    .default(false)
    .meta({ title: 'Force' })
    .describe('Overwrite the remote branch even when that discards commits on it (git push --force)'),
};

export const gitPush = defineTool({
  name: 'git_push',
  title: 'Push to a remote',
  description:
    "Send a local branch to the branch of the same name on a remote configured in the repository (https only). Refused when the remote branch has commits the local one lacks, unless force is true (which overwrites them). Credentials come from the server's environment.",
  input: gitPushInput,
  output: {
    remote: z.string(),
    url: z.string().describe('The remote URL (without any credentials)'),
    ref: z.string().describe('The remote ref that was updated, e.g. refs/heads/main'),
    old: z.string().nullable().describe('Commit of the remote branch before; null when it was created'),
    new: z.string().describe('Commit of the remote branch now'),
    result: z.enum(['up-to-date', 'new-branch', 'fast-forward', 'forced']),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  handler: async (args, ctx: GitContext, extra) => (await loadEngine()).push(args, ctx, extra),
});
