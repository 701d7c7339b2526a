/**
 * The diff tools' input and output schemas, for the tool definitions (`tools/list`). Kept apart from
 * ../diff/diffTool.ts, whose rendering imports isomorphic-git, so that a start-up does not load it.
 */
import { z } from 'zod';
import { cursorInput, maxBytesInput } from '../diff/paging.js';

export const pathsInput = z
  .array(z.string())
  .optional()
  .meta({ title: 'Paths' })
  .describe('Only these files or folders (relative to the top of the work tree); default: everything');

export const pagingInputs = { max_bytes: maxBytesInput, cursor: cursorInput };

export const hunkSchema = z.object({
  header: z.string().describe('The @@ line, with git’s function-name context'),
  old_start: z.number().int(),
  old_lines: z.number().int(),
  new_start: z.number().int(),
  new_lines: z.number().int(),
});

export const fileSchema = z.object({
  path: z.string(),
  old_path: z.string().optional().describe('The path before a rename'),
  status: z.enum(['added', 'modified', 'deleted', 'mode', 'renamed']),
  binary: z.boolean(),
  additions: z.number().int(),
  deletions: z.number().int(),
  hunks: z.array(hunkSchema),
});

export const diffOutput = {
  files: z.array(fileSchema).describe('The files whose patch starts in this page'),
  truncated: z.boolean().describe('True when more of the patch follows (see next_cursor)'),
  next_cursor: z.string().optional().describe('Pass as cursor to get the next part'),
};
