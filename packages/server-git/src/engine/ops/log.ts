/** `git_log` (its definition: ../../tools/gitLog.ts). */

import type { GitContext } from '../context.js';
import { GitError } from '../errors.js';
import { type CommitInfo, type Person, revList } from '../log/commits.js';
import { parseGitDate } from '../log/dates.js';
import { dateFilteredEntries, dateFilteredLines, pythonEntry } from '../log/format.js';
import { type CursorState, DEFAULT_MAX_BYTES, decodeCursor, encodeCursor, fitEntries, LOG_HEADER } from '../log/page.js';
import { readHead } from '../refs/revision.js';
import type { Repo } from '../repo.js';

function isoDate(p: Person): string {
  const east = p.timezoneOffset === 0 ? 0 : -p.timezoneOffset;
  const local = new Date((p.timestamp + east * 60) * 1000).toISOString().slice(0, 19);
  const sign = east < 0 ? '-' : '+';
  const abs = Math.abs(east);
  return `${local}${sign}${String(Math.trunc(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

interface LogPerson {
  name: string;
  email: string;
  /** ISO 8601 with the offset. */
  date: string;
}

interface LogCommit {
  oid: string;
  author: LogPerson;
  committer: LogPerson;
  message: string;
  parents: string[];
}

function commitData(c: CommitInfo): LogCommit {
  const who = (p: Person) => ({ name: p.name, email: p.email, date: isoDate(p) });
  return { oid: c.oid, author: who(c.author), committer: who(c.committer), message: c.message, parents: c.parents };
}

function parseBound(field: 'start_timestamp' | 'end_timestamp', value: string): number {
  const seconds = parseGitDate(value);
  if (seconds === null) {
    throw new GitError(
      'INVALID_ARGUMENT',
      `Invalid ${field}: '${value}' is not a date this server understands. Use ISO 8601 ('2024-01-15T14:30:25', '2024-01-15'), ` +
        `'Jan 15 2024', '15 Jan 2024', a Unix time '@1705325425', or a relative date ('2 weeks ago', 'yesterday', 'last month').`,
    );
  }
  return seconds;
}

/** The commit the walk starts from: the cursor's, or HEAD's (with the reference's errors on an unborn branch). */
async function startCommit(repo: Repo, state: CursorState | null, cmdline: string | null): Promise<string> {
  if (state) return state.start;
  const head = await readHead(repo);
  if (head.oid !== null) return head.oid;
  const branch = head.branch ?? 'HEAD';
  if (cmdline !== null) {
    const short = branch.replace(/^refs\/heads\//, '');
    throw new GitError(
      'GIT_COMMAND_FAILED',
      `Cmd('git') failed due to: exit code(128)\n  cmdline: ${cmdline}\n  stderr: 'fatal: your current branch '${short}' does not have any commits yet'`,
    );
  }
  throw new GitError('NOT_FOUND', `Reference at '${branch}' does not exist`);
}

/**
 * A walk over a long history (a date filter that matches little, a far cursor) stops between commits
 * when the client cancels the call (`notifications/cancelled`); nothing is returned for it.
 */
export interface LogOptions {
  max_count?: number | undefined;
  start_timestamp?: string | null | undefined;
  end_timestamp?: string | null | undefined;
  max_bytes?: number | undefined;
  cursor?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * One page of the history: its commits, the entries the reference prints for them (GitPython's
 * reprs; with a date filter, its 4-line entries), what those are (`commits` or `entries`) and the
 * cursor of the next page. The entries fit max_bytes together with LOG_HEADER.
 */
export interface LogData {
  commits: LogCommit[];
  entries: string[];
  unit: 'commits' | 'entries';
  next_cursor?: string;
}

export async function log(
  repo: Repo,
  { max_count = 10, start_timestamp = null, end_timestamp = null, max_bytes, cursor: given, signal }: LogOptions,
  ctx: GitContext,
): Promise<LogData> {
  /** After a walk: a cancelled one ended early, and its partial page must not be returned. */
  const stopIfCancelled = () => {
    if (!signal?.aborted) return;
    ctx.logger.info('git_log was cancelled by the client');
    throw new GitError('CANCELLED', 'git_log was cancelled by the client');
  };
  const state = given ? decodeCursor(given) : null;
  const skip = state?.skip ?? 0;
  const limit = max_count < 0 ? Number.POSITIVE_INFINITY : max_count;
  const budget = max_bytes ?? DEFAULT_MAX_BYTES;
  const header = LOG_HEADER;

  if (start_timestamp || end_timestamp) {
    if (start_timestamp?.startsWith('-'))
      throw new GitError('INVALID_ARGUMENT', `Invalid start_timestamp: '${start_timestamp}' - cannot start with '-'`);
    if (end_timestamp?.startsWith('-'))
      throw new GitError('INVALID_ARGUMENT', `Invalid end_timestamp: '${end_timestamp}' - cannot start with '-'`);
    const since = start_timestamp ? parseBound('start_timestamp', start_timestamp) : undefined;
    const until = end_timestamp ? parseBound('end_timestamp', end_timestamp) : undefined;
    const args = ['git', 'log'];
    if (start_timestamp) args.push('--since', start_timestamp);
    if (end_timestamp) args.push('--until', end_timestamp);
    args.push('--format=%H%n%an%n%ad%n%s%n');
    const start = await startCommit(repo, state, args.join(' '));
    // The reference keeps entries while len(log) < max_count: none for a negative count.
    const entryLimit = Math.max(0, max_count);
    // Entry k uses lines 4k..4k+3 of 5 lines a commit: enough commits for that many entries.
    const needed = Math.max(entryLimit, Math.ceil((4 * entryLimit + 4) / 5));
    const commits: CommitInfo[] = [];
    for await (const c of revList(repo, [start], { since, until, ...(signal ? { signal } : {}) })) {
      commits.push(c);
      if (commits.length >= needed) break;
    }
    stopIfCancelled();
    const entries = dateFilteredEntries(dateFilteredLines(commits), entryLimit);
    const rest = entries.slice(skip);
    const n = fitEntries(header, rest, '\n', budget);
    const shown = rest.slice(0, n);
    const more = skip + n < entries.length;
    const next = more ? encodeCursor({ start, skip: skip + n }) : undefined;
    return {
      commits: commits
        .slice(0, limit)
        .slice(skip, skip + n)
        .map(commitData),
      entries: shown,
      unit: 'entries',
      ...(next ? { next_cursor: next } : {}),
    };
  }

  const start = await startCommit(repo, state, null);
  const entries: string[] = [];
  const commits: CommitInfo[] = [];
  let used = Buffer.byteLength(header);
  let next: string | undefined;
  let index = 0;
  if (limit > 0) {
    for await (const c of revList(repo, [start], signal ? { signal } : {})) {
      if (index >= limit) break;
      if (index++ < skip) continue;
      const entry = pythonEntry(c);
      const size = Buffer.byteLength(entry) + (entries.length > 0 ? 1 : 0);
      if (entries.length > 0 && used + size > budget) {
        next = encodeCursor({ start, skip: skip + entries.length });
        break;
      }
      used += size;
      entries.push(entry);
      commits.push(c);
    }
    stopIfCancelled();
  }
  return { commits: commits.map(commitData), entries, unit: 'commits', ...(next ? { next_cursor: next } : {}) };
}
