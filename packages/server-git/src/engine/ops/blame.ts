/** `git_blame` (its answer: ../../tools/gitBlame.ts). */

import { resolveWorkPath } from '../confine.js';
import { createAbbreviator } from '../diff/abbrev.js';
import { type BlameLine, blame } from '../diff/blame.js';
import { decodeByteString } from '../diff/patch.js';
import { guardDash, resolveObject } from '../diff/rev.js';
import { GitError } from '../errors.js';
import type { Repo } from '../repo.js';

export interface BlameOptions {
  file: string;
  rev?: string | undefined;
  start_line?: number | undefined;
  end_line?: number | undefined;
  /** Stops the walk (it throws the signal's reason) once aborted: a cancelled call or task. */
  signal?: AbortSignal | undefined;
}

/**
 * The lines asked for, each with the commit that last changed it (`content` decoded, with its newline
 * if it has one), and the length git abbreviates those commits' ids to (`git blame` prints one more).
 */
export interface BlameData {
  path: string;
  lines: BlameLine[];
  abbrevLength: number;
}

export async function blameFile(repo: Repo, { file, rev, start_line, end_line, signal }: BlameOptions): Promise<BlameData> {
  const revision = rev ?? 'HEAD';
  guardDash(revision, 'revision');
  const path = await resolveWorkPath(repo, file);
  if (path === '') throw new GitError('INVALID_ARGUMENT', 'file is the top of the work tree; give a file');
  const commit = await resolveObject(repo, revision, { kind: 'commit' });
  const whole = await blame(repo, commit, path, { from: 0, to: 0 }, signal);
  if (!whole) throw new GitError('NOT_FOUND', `no such path '${path}' in ${revision}`);
  const total = whole.total;
  const from = (start_line ?? 1) - 1;
  const to = end_line ?? total;
  if (from >= Math.max(total, 1) && (start_line ?? 1) > 1)
    throw new GitError('INVALID_ARGUMENT', `file ${path} has only ${total} line${total === 1 ? '' : 's'}`);
  if (to < from + 1 && total > 0) throw new GitError('INVALID_ARGUMENT', `end_line ${to} is before start_line ${from + 1}`);
  const { blamed } = (await blame(repo, commit, path, { from, to: Math.min(to, total) }, signal))!;
  const abbrev = await createAbbreviator(repo);
  const commits = new Set(blamed.map((b) => b.commit.oid));
  await abbrev.prefetch(commits);
  // Over every line asked for, as git does (not only over the part shown).
  let abbrevLength = 0;
  for (const c of commits) abbrevLength = Math.max(abbrevLength, abbrev.abbrev(c).length);
  return { path, lines: blamed.map((b) => ({ ...b, content: decodeByteString(b.content) })), abbrevLength };
}
