import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { loadEngine, repoPath } from './common.js';
import { refUpdateSchema } from './gitFetch.js';

export const gitPullInput = {
  repo_path: repoPath,
  remote: z.string().default('origin').meta({ title: 'Remote' }).describe('Name of a remote configured in the repository (default origin)'),
  branch: z
    .string()
    .nullable()
    .default(null)
    .meta({ title: 'Branch' })
    .describe("The remote's branch to merge; default: the current branch's upstream, else the branch of the same name"),
};

export const gitPull = defineTool({
  name: 'git_pull',
  title: 'Pull from a remote',
  description:
    "Fetch a branch from a remote configured in the repository (https only) and bring the current branch up to date: fast-forward, or a merge commit when both sides have new commits. Stops without changing anything on a conflict or when local changes would be overwritten. Credentials come from the server's environment.",
  input: gitPullInput,
  output: {
    remote: z.string(),
    url: z.string().describe('The remote URL (without any credentials)'),
    branch: z.string().describe('The local branch that was updated'),
    remote_branch: z.string().describe("The remote's branch that was merged"),
    result: z.enum(['up-to-date', 'fast-forward', 'merge']),
    old: z.string().nullable().describe('Commit of the branch before; null on an unborn branch'),
    new: z.string().nullable().describe('Commit of the branch after'),
    files: z.array(z.string()).describe('Work-tree files that were updated, created or deleted'),
    fetched: z.array(refUpdateSchema).describe('Remote-tracking refs the fetch changed'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  handler: async (args, ctx: GitContext, extra) => (await loadEngine()).pull(args, ctx, extra),
});
