import { defineTool, structuredResult, type ToolResult } from '@mcpkit/protocol-core';
import { z } from 'zod';
import type { GitContext } from '../engine/context.js';
import { continueNotice, cursor, LOG_HEADER, maxBytes } from '../engine/log/page.js';
import type { LogData } from '../engine/ops/log.js';
import { openRepository, READ_ONLY, repoPath } from './common.js';

const timestamp = (which: 'Start' | 'End') =>
  z
    .string()
    .nullable()
    .default(null)
    .meta({ title: `${which} Timestamp` })
    .describe(
      `${which} timestamp for filtering commits. Accepts: ISO 8601 format (e.g., '2024-01-15T14:30:25'), relative dates (e.g., '2 weeks ago', 'yesterday'), or absolute dates (e.g., '2024-01-15', 'Jan 15 2024')`,
    );

const person = z.object({ name: z.string(), email: z.string(), date: z.string().describe('ISO 8601 with the offset') });

const gitLogInput = {
  repo_path: repoPath,
  max_count: z.number().int().default(10).meta({ title: 'Max Count' }).describe('Most commits to list (default 10)'),
  start_timestamp: timestamp('Start'),
  end_timestamp: timestamp('End'),
  max_bytes: maxBytes,
  cursor,
};

export const gitLog = defineTool({
  name: 'git_log',
  title: 'Show commit log',
  description: 'Shows the commit logs',
  input: gitLogInput,
  output: {
    commits: z
      .array(
        z.object({
          oid: z.string(),
          author: person,
          committer: person,
          message: z.string(),
          parents: z.array(z.string()),
        }),
      )
      .describe('The commits on this page, newest first (git rev-list order)'),
    next_cursor: z.string().optional().describe('Pass as cursor to get the next page; absent on the last page'),
  },
  annotations: READ_ONLY,
  handler: async ({ repo_path, ...options }, ctx: GitContext, extra) =>
    logAnswer(await (await openRepository(ctx, repo_path)).log({ ...options, signal: extra?.mcpReq.signal })),
});

/** The answer for one page of the history as the engine reads it (the read-ahead builds it too). */
export function logAnswer(page: LogData): ToolResult<{ commits: LogData['commits']; next_cursor?: string }> {
  const next = page.next_cursor;
  const data = { commits: page.commits, ...(next ? { next_cursor: next } : {}) };
  return structuredResult(data, LOG_HEADER + page.entries.join('\n') + (next ? continueNotice(next, page.entries.length, page.unit) : ''));
}
