import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { openRepository, repoPath } from './common.js';
import { remoteCall, short } from './remoteText.js';

const gitPushInput = {
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
  // The network may take longer than a client waits: a client that opts in gets a task (2026-07-28).
  task: 'optional',
  handler: async ({ repo_path, ...options }, ctx: GitContext, extra) => {
    const { branch: local, ...data } = await (await openRepository(ctx, repo_path)).push(options, remoteCall(extra));
    const { remote, old: before, new: oid, result } = data;
    const text =
      result === 'up-to-date'
        ? `Everything up-to-date: ${remote}/${local} is already at ${short(oid)}`
        : result === 'new-branch'
          ? `Pushed ${local} to ${remote}: new branch ${short(oid)}`
          : result === 'forced'
            ? `Pushed ${local} to ${remote}: forced update ${short(before ?? '')}...${short(oid)}`
            : `Pushed ${local} to ${remote}: ${short(before ?? '')}..${short(oid)}`;
    return structuredResult(data, text);
  },
});
