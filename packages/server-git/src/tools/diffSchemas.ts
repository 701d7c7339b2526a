/**
 * The diff tools' input and output schemas, for the tool definitions (`tools/list`). Kept apart from
 * ../engine/diff/diffTool.ts, whose rendering imports isomorphic-git, and ../engine/diff/paging.ts (node:crypto), so
 * that a start-up does not load them.
 */
import { z } from 'zod';
import { MAX_BYTES_LIMIT } from '../limits.js';

export const pathsInput = z
  .array(z.string())
  .optional()
  .meta({ title: 'Paths' })
  .describe('Only these files or folders (relative to the top of the work tree); default: everything');

const maxBytesInput = z
  .number()
  .int()
  .min(1024)
  .max(MAX_BYTES_LIMIT)
  .optional()
  .meta({ title: 'Max Bytes' })
  .describe('Largest patch text to return in one call, in bytes (default 1 MiB, at most 4 MiB); the rest comes with next_cursor');

const cursorInput = z
  .string()
  .optional()
  .meta({ title: 'Cursor' })
  .describe('The next_cursor of a previous call with the same arguments, to get the next part of a large patch');

export const pagingInputs = { max_bytes: maxBytesInput, cursor: cursorInput };

const hunkSchema = z.object({
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
