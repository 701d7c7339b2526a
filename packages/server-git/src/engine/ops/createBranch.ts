/** `git_create_branch` (its definition: ../../tools/gitCreateBranch.ts). */

import git from 'isomorphic-git';
import { GitError } from '../errors.js';
import { listRefNames } from '../refs/branches.js';
import { assertBranchName, badName, guardDash } from '../refs/names.js';
import { updateRef, withRefWrites } from '../refs/refLock.js';
import { peelToCommit, readHead } from '../refs/revision.js';
import type { Repo } from '../repo.js';

/**
 * GitPython's `repo.references[name]`: the first ref, in full-path order, whose short name (the path
 * without `refs/<kind>/`) is `name` — a branch, a remote-tracking branch or a tag.
 */
async function findReference(repo: Repo, name: string): Promise<{ ref: string; name: string } | null> {
  const refs = (await listRefNames(repo, 'refs')).filter((r) => r.split('/').length >= 3 && r !== 'refs/stash');
  const ref = refs.find((r) => r.split('/').slice(2).join('/') === name);
  return ref ? { ref, name } : null;
}

async function existingBranchConflict(repo: Repo, full: string): Promise<string | null> {
  for (const ref of await listRefNames(repo, 'refs/heads')) {
    if (full.startsWith(`${ref}/`)) return `'${ref}' exists; cannot create '${full}'`;
    if (ref.startsWith(`${full}/`)) return `'${ref}' exists; cannot create '${full}'`;
  }
  return null;
}

export interface CreateBranchOptions {
  branch_name: string;
  base_branch?: string | null | undefined;
}

/** The branch made (or found already at that commit: created false), and what it was made from. */
export interface CreateBranchData {
  branch: string;
  base: string;
  commit: string;
  created: boolean;
}

export async function createBranch(repo: Repo, { branch_name, base_branch = null }: CreateBranchOptions): Promise<CreateBranchData> {
  guardDash('branch name', branch_name);
  guardDash('base branch', base_branch);
  let baseName: string;
  let baseRef: string;
  if (base_branch) {
    const found = await findReference(repo, base_branch);
    if (!found) throw new GitError('NOT_FOUND', `No item found with id '${base_branch}'`);
    baseName = found.name;
    baseRef = found.ref;
  } else {
    const head = await readHead(repo);
    if (head.branch === null) {
      throw new GitError('CONFLICT', `HEAD is a detached symbolic reference as it points to '${head.oid}'`);
    }
    baseRef = head.branch;
    baseName = head.branch.replace(/^refs\/heads\//, '');
  }
  assertBranchName(branch_name);
  let oid: string | null = null;
  try {
    oid = await peelToCommit(repo, await git.resolveRef({ ...repo.git, ref: baseRef }));
  } catch {
    oid = null;
  }
  if (oid === null) throw badName(baseName);
  const full = `refs/heads/${branch_name}`;
  const created = await withRefWrites(repo, async () => {
    let existing: string | null = null;
    try {
      existing = await git.resolveRef({ ...repo.git, ref: full });
    } catch {
      existing = null;
    }
    if (existing !== null && existing !== oid) {
      throw new GitError('CONFLICT', `Reference at '${full}' does already exist, pointing to '${existing}', requested was '${oid}'`);
    }
    if (existing !== null) return false;
    const conflict = await existingBranchConflict(repo, full);
    if (conflict) throw new GitError('CONFLICT', `Cannot create branch '${branch_name}': ${conflict}`);
    // Created only where no branch is (compare-and-swap with "missing", under the ref's lock).
    await updateRef(repo, { ref: full, value: oid, expected: null });
    return true;
  });
  return { branch: branch_name, base: baseName, commit: oid, created };
}
