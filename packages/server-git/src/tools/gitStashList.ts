import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../context.js';
import { listStash } from '../refs/stash.js';
import { openRepo } from '../repo.js';
import { READ_ONLY, repoPath } from './common.js';

export const gitStashList = defineTool({
  name: 'git_stash_list',
  title: 'List stash entries',
  description: 'Lists the stash entries, newest first, like git stash list',
  input: { repo_path: repoPath },
  output: {
    entries: z
      .array(z.object({ name: z.string().describe('stash@{N}'), commit: z.string(), message: z.string() }))
      .describe('Stash entries, stash@{0} first'),
  },
  annotations: READ_ONLY,
  handler: async ({ repo_path }, ctx: GitContext) => {
    const repo = await openRepo(ctx, repo_path);
    const entries = (await listStash(repo)).map((e) => ({ name: `stash@{${e.index}}`, commit: e.oid, message: e.message }));
    return structuredResult({ entries }, entries.map((e) => `${e.name}: ${e.message}`).join('\n'));
  },
});
