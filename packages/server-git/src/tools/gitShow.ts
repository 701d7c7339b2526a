import { defineTool, structuredResult, type ToolResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import type { ShowData } from '../engine/ops/show.js';
import { openRepository, READ_ONLY, repoPath } from './common.js';
import { fileSchema, pagingInputs } from './diffSchemas.js';
import { pageFields, pageText } from './patchAnswer.js';

const person = z.object({ name: z.string(), email: z.string(), date: z.string().describe('ISO 8601 with the offset') });

const gitShowInput = {
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
  handler: async ({ repo_path, ...options }, ctx: GitContext) => showAnswer(await (await openRepository(ctx, repo_path)).show(options)),
});

/** The answer for one page of a commit as the engine shows it (the read-ahead builds it too). */
export function showAnswer({
  commit,
  files,
  page,
}: ShowData): ToolResult<Pick<ShowData, 'commit' | 'files'> & ReturnType<typeof pageFields>> {
  return structuredResult({ commit, files, ...pageFields(page) }, (page.start === 0 ? '' : '(continued)\n') + pageText(page));
}
