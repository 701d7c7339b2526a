import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { openRepository, repoPath } from './common.js';

const gitMergeInput = {
  repo_path: repoPath,
  branch: z.string().meta({ title: 'Branch' }).describe('Branch, tag or commit to merge into the current branch'),
  message: z.string().optional().meta({ title: 'Message' }).describe("Merge commit message (default: git's \"Merge branch '<name>'\")"),
};

export const gitMerge = defineTool({
  name: 'git_merge',
  title: 'Merge a branch',
  description:
    'Merges a branch, tag or commit into the current branch: fast-forward when possible, else a merge commit when the merge is clean. ' +
    'Refuses (changing nothing) when the work tree or index has uncommitted changes to tracked files, or when the merge would conflict (the conflicting files are listed).',
  input: gitMergeInput,
  output: {
    result: z.enum(['up-to-date', 'fast-forward', 'merge']),
    branch: z.string().describe('The branch merged into'),
    commit: z.string().describe('The commit the branch is at now'),
    previous: z.string().describe('The commit it was at before'),
    files: z.array(z.string()).describe('Files changed by the merge'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ repo_path, ...options }, ctx: GitContext) => {
    const { range, ...data } = await (await openRepository(ctx, repo_path)).merge(options);
    const files = data.files.map((f) => ` ${f}`).join('\n');
    const text =
      data.result === 'up-to-date'
        ? 'Already up to date.'
        : data.result === 'fast-forward'
          ? `Updating ${range}\nFast-forward\n${files}`
          : `Merge made by the 'ort' strategy (${range}).\n${files}`;
    return structuredResult(data, text.trimEnd());
  },
});
