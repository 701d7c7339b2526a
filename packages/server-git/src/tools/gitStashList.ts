import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { ANSWER_CAP, capText, fitItems } from '../limits.js';
import { openRepository, READ_ONLY, repoPath } from './common.js';

const gitStashListInput = { repo_path: repoPath };

export const gitStashList = defineTool({
  name: 'git_stash_list',
  title: 'List stash entries',
  description: 'Lists the stash entries, newest first, like git stash list',
  input: gitStashListInput,
  output: {
    entries: z
      .array(z.object({ name: z.string().describe('stash@{N}'), commit: z.string(), message: z.string() }))
      .describe('Stash entries, stash@{0} first'),
  },
  annotations: READ_ONLY,
  handler: async ({ repo_path }, ctx: GitContext) => {
    const entries = await (await openRepository(ctx, repo_path)).stashList();
    const text = capText(entries.map((e) => `${e.name}: ${e.message}`).join('\n'), 'The oldest entries are left out; drop or pop some.');
    return structuredResult({ entries: fitItems(entries, ANSWER_CAP) }, text.text);
  },
});
