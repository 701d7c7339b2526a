import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { loadEngine, READ_ONLY, repoPath } from './common.js';
import { fileSchema, pagingInputs } from './diffSchemas.js';

const person = z.object({ name: z.string(), email: z.string(), date: z.string().describe('ISO 8601 with the offset') });

export const gitShowInput = {
  repo_path: repoPath,
  revision: z.string().meta({ title: 'Revision' }).describe('Commit to show: a sha, branch, tag, HEAD, HEAD~1, …'),
  ...pagingInputs,
};

export const gitShow = defineTool({
  name: 'git_show',
  title: 'Show a commit',
  description: 'Shows the contents of a commit',
  input: gitShowInput,
  output: {
    commit: z.object({
      oid: z.string(),
      author: person,
      committer: person,
      message: z.string(),
      parents: z.array(z.string()),
    }),
    files: z.array(fileSchema).describe('The files whose patch starts in this page (compared with the first parent)'),
    truncated: z.boolean(),
    next_cursor: z.string().optional(),
  },
  annotations: READ_ONLY,
  handler: async (args, ctx: GitContext) => (await loadEngine()).show(args, ctx),
});
