import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { openRepository, repoPath } from './common.js';
import { refUpdateSchema } from './gitFetch.js';
import { describeUpdate, remoteCall, short } from './remoteText.js';

const gitPullInput = {
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
  // The network may take longer than a client waits: a client that opts in gets a task (2026-07-28).
  task: 'optional',
  handler: async ({ repo_path, ...options }, ctx: GitContext, extra) => {
    const { theirs, ...data } = await (await openRepository(ctx, repo_path)).pull(options, remoteCall(extra));
    if (data.result === 'up-to-date') return structuredResult(data, 'Already up to date.');
    const from = `${data.remote}/${data.remote_branch}`;
    const target = data.new ?? '';
    const summary =
      data.result === 'fast-forward'
        ? `fast-forward ${data.old ? short(data.old) : '(unborn)'}..${short(target)}`
        : `merge commit ${short(target)} (${short(data.old ?? '')} + ${short(theirs)})`;
    const fetchedText = data.fetched.length > 0 ? `\nFetched: ${data.fetched.map(describeUpdate).join(', ')}` : '';
    const n = data.files.length;
    return structuredResult(data, `Pulled ${from} into ${data.branch}: ${summary}, ${n} file${n === 1 ? '' : 's'} updated${fetchedText}`);
  },
});
