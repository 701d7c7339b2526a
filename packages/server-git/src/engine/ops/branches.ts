/** `git_branch` (its answer: ../../tools/gitBranch.ts). */

import { GitError } from '../errors.js';
import { type BranchEntry, filterBranches, listBranches } from '../refs/branches.js';
import { guardDash } from '../refs/names.js';
import { resolveRevision } from '../refs/revision.js';
import type { Repo } from '../repo.js';

const FLAGS: Record<string, string> = { local: '', remote: '-r', all: '-a' };

/** A commit for --contains/--no-contains, or the reference's GitCommandError text (git exits 129). */
async function commitFor(repo: Repo, value: string, cmdline: string): Promise<string> {
  const resolved = await resolveRevision(repo, value).catch(() => null);
  if (resolved) return resolved.oid;
  throw new GitError(
    'GIT_COMMAND_FAILED',
    `Cmd('git') failed due to: exit code(129)\n  cmdline: ${cmdline}\n  stderr: 'error: malformed object name ${value}'`,
  );
}

export interface BranchesOptions {
  branch_type: string;
  contains?: string | null | undefined;
  not_contains?: string | null | undefined;
}

/** The branches `git branch [-r|-a] [--contains X] [--no-contains Y]` lists; null for a branch_type git has no flag for. */
export async function branches(
  repo: Repo,
  { branch_type, contains = null, not_contains = null }: BranchesOptions,
): Promise<BranchEntry[] | null> {
  guardDash('contains value', contains);
  guardDash('not_contains value', not_contains);
  const flag = FLAGS[branch_type];
  if (flag === undefined || !Object.hasOwn(FLAGS, branch_type)) return null;
  const args = ['git', 'branch', ...(flag ? [flag] : [])];
  if (contains) args.push('--contains', contains);
  if (not_contains) args.push('--no-contains', not_contains);
  const cmdline = args.join(' ');
  const containsOid = contains ? await commitFor(repo, contains, cmdline) : null;
  const notContainsOid = not_contains ? await commitFor(repo, not_contains, cmdline) : null;
  const all = await listBranches(repo, branch_type as 'local' | 'remote' | 'all');
  return filterBranches(repo, all, containsOid, notContainsOid);
}
