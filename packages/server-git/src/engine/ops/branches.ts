/** `git_branch` (its definition: ../../tools/gitBranch.ts). */

import { structuredResult, ToolError } from '@mcpkit/protocol-core';
import { ANSWER_CAP, capText, fitItems } from '../../limits.js';
import type { GitContext } from '../context.js';
import { branchText, filterBranches, listBranches } from '../refs/branches.js';
import { guardDash } from '../refs/names.js';
import { resolveRevision } from '../refs/revision.js';
import { openRepo, type Repo } from '../repo.js';

const FLAGS: Record<string, string> = { local: '', remote: '-r', all: '-a' };

/** A commit for --contains/--no-contains, or the reference's GitCommandError text (git exits 129). */
async function commitFor(repo: Repo, value: string, cmdline: string): Promise<string> {
  const resolved = await resolveRevision(repo, value).catch(() => null);
  if (resolved) return resolved.oid;
  throw new ToolError(`Cmd('git') failed due to: exit code(129)\n  cmdline: ${cmdline}\n  stderr: 'error: malformed object name ${value}'`);
}

export interface BranchesArgs {
  repo_path: string;
  branch_type: string;
  contains: string | null;
  not_contains: string | null;
}

export async function branches({ repo_path, branch_type, contains, not_contains }: BranchesArgs, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  guardDash('contains value', contains);
  guardDash('not_contains value', not_contains);
  const flag = FLAGS[branch_type];
  if (flag === undefined || !Object.hasOwn(FLAGS, branch_type)) {
    return structuredResult({ branches: [] }, `Invalid branch type: ${branch_type}`);
  }
  const args = ['git', 'branch', ...(flag ? [flag] : [])];
  if (contains) args.push('--contains', contains);
  if (not_contains) args.push('--no-contains', not_contains);
  const cmdline = args.join(' ');
  const containsOid = contains ? await commitFor(repo, contains, cmdline) : null;
  const notContainsOid = not_contains ? await commitFor(repo, not_contains, cmdline) : null;
  const all = await listBranches(repo, branch_type as 'local' | 'remote' | 'all');
  const branches = await filterBranches(repo, all, containsOid, notContainsOid);
  return structuredResult(
    {
      branches: fitItems(
        branches.map((b) => ({
          name: b.name,
          current: b.current,
          remote: b.remote,
          commit: b.commit,
        })),
        ANSWER_CAP,
      ),
    },
    capText(branchText(branches), 'Narrow the list with contains / not_contains, or branch_type local.').text,
  );
}
