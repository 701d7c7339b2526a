import { defineTool } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { loadEngine, READ_ONLY, repoPath } from './common.js';

export const gitBlameInput = {
  repo_path: repoPath,
  file: z.string().meta({ title: 'File' }).describe('The file, relative to the top of the work tree'),
  rev: z.string().optional().meta({ title: 'Rev' }).describe('Revision whose version of the file is blamed (default HEAD)'),
  start_line: z.number().int().min(1).optional().meta({ title: 'Start Line' }).describe('First line to blame (1-based, default 1)'),
  end_line: z.number().int().min(1).optional().meta({ title: 'End Line' }).describe('Last line to blame (default: the last line)'),
};

export const gitBlame = defineTool({
  name: 'git_blame',
  title: 'Blame lines of a file',
  description:
    'Shows which commit last changed each line of a file (git blame): for each line its commit, author, date and summary. ' +
    'Give start_line/end_line to blame part of the file.',
  input: gitBlameInput,
  output: {
    lines: z.array(
      z.object({
        line: z.number().int().describe('Line number in the file at rev'),
        orig_line: z.number().int().describe('Line number in the file as that commit has it'),
        commit: z.string().describe('The commit that last changed the line'),
        author: z.string(),
        author_email: z.string(),
        author_time: z.number().int().describe('Unix time (seconds)'),
        author_tz: z.string().describe('Offset, e.g. +0100'),
        summary: z.string().describe("The commit message's first line"),
        path: z.string().describe('The path in that commit (differs after a rename)'),
        boundary: z.boolean().describe('The commit is a root commit (git shows ^ before it)'),
        content: z.string().describe('The line, without its newline'),
      }),
    ),
  },
  annotations: READ_ONLY,
  handler: async (args, ctx: GitContext) => (await loadEngine()).blameFile(args, ctx),
});
