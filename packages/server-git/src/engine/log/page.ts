/**
 * Paging a text made of entries (commits, stash entries): `max_bytes` per call, an opaque `cursor`
 * to continue. Without `max_bytes` the text is the reference's, capped at DEFAULT_MAX_BYTES.
 */

import { z } from 'zod';
import { MAX_BYTES_LIMIT } from '../../limits.js';
import { GitError } from '../errors.js';

export const DEFAULT_MAX_BYTES = 1024 * 1024;

/** The header git_log's answer starts with (counted in a page's budget). */
export const LOG_HEADER = 'Commit history:\n';

export const maxBytes = z
  .number()
  .int()
  .min(256)
  .max(MAX_BYTES_LIMIT)
  .optional()
  .meta({ title: 'Max Bytes' })
  .describe(
    `Most UTF-8 bytes of text to return in one call (default ${DEFAULT_MAX_BYTES}, at most ${MAX_BYTES_LIMIT}); more is continued with cursor`,
  );

export const cursor = z
  .string()
  .optional()
  .meta({ title: 'Cursor' })
  .describe('next_cursor from the previous call, to continue a long result');

/** What a cursor remembers: where the walk started (so new commits do not shift pages) and how far it got. */
export interface CursorState {
  start: string;
  skip: number;
}

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

export function decodeCursor(value: string): CursorState {
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<CursorState>;
    if (typeof parsed.start === 'string' && Number.isInteger(parsed.skip) && (parsed.skip as number) >= 0) {
      return { start: parsed.start, skip: parsed.skip as number };
    }
  } catch {
    // fall through
  }
  throw new GitError('INVALID_ARGUMENT', `Invalid cursor '${value}': pass next_cursor from the previous call unchanged`);
}

/**
 * How many of `entries` (each with its separator) fit in `budget` bytes after `header`; always at
 * least one, so a single huge entry still makes progress.
 */
export function fitEntries(header: string, entries: readonly string[], separator: string, budget: number): number {
  let used = Buffer.byteLength(header);
  let n = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(entry) + (n > 0 ? Buffer.byteLength(separator) : 0);
    if (n > 0 && used + size > budget) break;
    used += size;
    n++;
  }
  return n;
}

export function continueNotice(nextCursor: string, shown: number, what: string): string {
  return `\n[${shown} ${what} shown; more follow: call again with cursor "${nextCursor}"]`;
}
