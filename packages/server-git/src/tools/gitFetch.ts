import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { openRepository, repoPath } from './common.js';
import { describeUpdate, remoteCall } from './remoteText.js';

export const refUpdateSchema = z.object({
  ref: z.string().describe('Full ref name, e.g. refs/remotes/origin/main'),
  name: z.string().describe('Short name: the branch on the remote, or the tag'),
  old: z.string().nullable().describe('Commit before; null for a new ref'),
  new: z.string().nullable().describe('Commit after; null for a deleted (pruned) ref'),
});

const gitFetchInput = {
  repo_path: repoPath,
  remote: z.string().default('origin').meta({ title: 'Remote' }).describe('Name of a remote configured in the repository (default origin)'),
  ref: z
    .string()
    .nullable()
    .default(null)
    .meta({ title: 'Ref' })
    .describe('Fetch only this branch of the remote; all its branches when absent'),
  prune: z.boolean().default(false).meta({ title: 'Prune' }).describe('Delete remote-tracking branches that no longer exist on the remote'),
  tags: z.boolean().default(false).meta({ title: 'Tags' }).describe('Fetch all tags too'),
};

export const gitFetch = defineTool({
  name: 'git_fetch',
  title: 'Fetch from a remote',
  description:
    "Download commits and branches from a remote configured in the repository (https only) into its remote-tracking branches (origin/main, …). The work tree, the index and local branches are not changed. Credentials come from the server's environment.",
  input: gitFetchInput,
  output: {
    remote: z.string(),
    url: z.string().describe('The remote URL (without any credentials)'),
    updated: z.array(refUpdateSchema).describe('Refs that changed, in name order'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  // The network may take longer than a client waits: a client that opts in gets a task (2026-07-28).
  task: 'optional',
  handler: async ({ repo_path, ...options }, ctx: GitContext, extra) => {
    const data = await (await openRepository(ctx, repo_path)).fetch(options, remoteCall(extra));
    const { updated } = data;
    const text =
      updated.length === 0
        ? `Fetched ${data.remote}: already up to date`
        : updated.length === 1
          ? `Fetched ${data.remote}: ${describeUpdate(updated[0]!)}`
          : `Fetched ${data.remote}:\n${updated.map((u) => `  ${describeUpdate(u)}`).join('\n')}`;
    return structuredResult(data, text);
  },
});
