/** `git_merge` (its definition: ../../tools/gitMerge.ts). */

import git from 'isomorphic-git';
import type { GitContext } from '../context.js';
import { GitError } from '../errors.js';
import { type HeldIndex, withIndexLock } from '../git/indexLock.js';
import { reaches } from '../log/commits.js';
import { identityFor } from '../refs/identity.js';
import { blockedPaths } from '../refs/inTheWay.js';
import { kindConflicts } from '../refs/mergeCheck.js';
import { guardDash } from '../refs/names.js';
import { updateRef } from '../refs/refLock.js';
import { abbrev, readHead, resolveRevision } from '../refs/revision.js';
import { changedPaths, localChanges } from '../refs/worktree.js';
import type { Repo } from '../repo.js';

/** git's default merge message (merge.suppressDest: no " into <branch>" for main/master). */
function defaultMessage(given: string, ref: string | undefined, current: string): string {
  let what = `commit '${given}'`;
  if (ref?.startsWith('refs/heads/')) what = `branch '${ref.slice('refs/heads/'.length)}'`;
  else if (ref?.startsWith('refs/remotes/')) what = `remote-tracking branch '${ref.slice('refs/remotes/'.length)}'`;
  else if (ref?.startsWith('refs/tags/')) what = `tag '${ref.slice('refs/tags/'.length)}'`;
  return `Merge ${what}${current === 'master' || current === 'main' ? '' : ` into ${current}`}`;
}

/** Brings index and work tree from `from` to `to` for the files that differ (both clean there). */
async function updateWorkTree(held: HeldIndex, to: string, paths: Set<string>): Promise<void> {
  if (paths.size === 0) return;
  await git.checkout({ ...held.git, ref: to, filepaths: [...paths], force: true, noUpdateHead: true });
}

/**
 * Work tree and index first, the branch last: when the files cannot be written, they are put back as
 * they were at `from` (they were clean) and the branch is not moved, so a failure changes nothing.
 */
async function moveBranch(repo: Repo, held: HeldIndex, ref: string, from: string, to: string, paths: Set<string>): Promise<void> {
  try {
    await updateWorkTree(held, to, paths);
    // Only from the commit the merge started at (compare-and-swap under the branch's lock).
    await updateRef(repo, { ref, value: to, expected: from });
  } catch (error) {
    await updateWorkTree(held, from, paths).catch(() => undefined);
    throw error;
  }
}

export interface MergeOptions {
  branch: string;
  message?: string | undefined;
}

/** What the merge did to the current branch: nothing, a fast-forward or a merge commit, and the files it changed. */
export interface MergeData {
  result: 'up-to-date' | 'fast-forward' | 'merge';
  branch: string;
  commit: string;
  previous: string;
  files: string[];
  /** `<previous>..<commit>`, abbreviated as git prints it (empty when up to date). */
  range: string;
}

export async function merge(repo: Repo, { branch, message }: MergeOptions, ctx: GitContext): Promise<MergeData> {
  guardDash('branch', branch);
  // Under index.lock from the first read of HEAD and the index to the move of the branch, as git merge.
  return withIndexLock(repo, (held) => mergeHeld(repo, { branch, message }, held, ctx));
}

async function mergeHeld(
  repo: Repo,
  { branch, message }: { branch: string; message?: string | undefined },
  held: HeldIndex,
  ctx: GitContext,
): Promise<MergeData> {
  const head = await readHead(repo);
  if (head.branch === null) throw new GitError('CONFLICT', 'HEAD is detached: check out the branch to merge into first (git_checkout)');
  const current = head.branch.replace(/^refs\/heads\//, '');
  if (head.oid === null) throw new GitError('CONFLICT', `The current branch '${current}' has no commits yet`);
  const theirs = await resolveRevision(repo, branch);
  if (!theirs) throw new GitError('NOT_FOUND', `merge: ${branch} - not something we can merge`);

  if (await reaches(repo, head.oid, theirs.oid)) {
    return { result: 'up-to-date', branch: current, commit: head.oid, previous: head.oid, files: [], range: '' };
  }
  const changes = await localChanges(held.repo);
  const dirty = [...new Set([...changes.staged, ...changes.unstaged])].sort();
  if (dirty.length > 0) {
    throw new GitError(
      'CONFLICT',
      `Uncommitted changes to tracked files (${dirty.join(', ')}): commit them (git_commit) or stash them (git_stash) before merging. Nothing was changed.`,
    );
  }
  const from = head.oid;
  let to: string;
  let result: 'fast-forward' | 'merge';
  if (await reaches(repo, theirs.oid, from)) {
    to = theirs.oid;
    result = 'fast-forward';
  } else {
    const identity = identityFor(repo, ctx, 'committer');
    const text = (message ?? defaultMessage(branch, theirs.ref, current)).replace(/\s+$/, '');
    const [base] = await git.findMergeBase({ ...repo.git, oids: [from, theirs.oid] });
    const kinds = base ? await kindConflicts(repo, from, base as string, theirs.oid) : [];
    if (kinds.length > 0) {
      throw new GitError(
        'CONFLICT',
        `Merging '${branch}' into '${current}' would conflict in: ${kinds.map((k) => `${k.path} (CONFLICT (${k.kind}))`).join(', ')}. Nothing was changed; resolve it with the git CLI, or merge the other way round.`,
      );
    }
    try {
      const merged = await git.merge({
        ...held.git,
        ours: head.branch,
        theirs: theirs.oid,
        fastForward: false,
        noUpdateBranch: true,
        abortOnConflict: true,
        message: `${text}\n`,
        author: identityFor(repo, ctx, 'author'),
        committer: identity,
      });
      to = merged.oid!;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'MergeConflictError') {
        const data =
          (error as { data?: { filepaths?: string[]; bothModified?: string[]; deleteByUs?: string[]; deleteByTheirs?: string[] } }).data ??
          {};
        const files = [
          ...new Set([...(data.filepaths ?? []), ...(data.bothModified ?? []), ...(data.deleteByUs ?? []), ...(data.deleteByTheirs ?? [])]),
        ].sort();
        throw new GitError(
          'CONFLICT',
          `Merging '${branch}' into '${current}' would conflict in: ${files.join(', ')}. Nothing was changed; resolve it with the git CLI, or merge the other way round.`,
        );
      }
      if (code === 'MergeNotSupportedError') {
        throw new GitError(
          'UNSUPPORTED',
          `Merging '${branch}' needs a merge this server cannot do safely (${(error as Error).message}). Nothing was changed.`,
        );
      }
      throw error;
    }
    result = 'merge';
  }
  const paths = await changedPaths(repo, from, to);
  const clobbered = changes.untracked.filter((p) => paths.has(p));
  if (clobbered.length > 0) {
    throw new GitError(
      'CONFLICT',
      `error: The following untracked working tree files would be overwritten by merge:\n\t${clobbered.join('\n\t')}\nPlease move or remove them before you merge.\nAborting`,
    );
  }
  const blocked = await blockedPaths(repo, paths);
  if (blocked.length > 0) {
    throw new GitError(
      'CONFLICT',
      `Merging '${branch}' would have to overwrite: ${blocked.join(', ')}. Move them away first. Nothing was changed.`,
    );
  }
  await moveBranch(repo, held, head.branch, from, to, paths);
  const files = [...paths].sort();
  const range = `${await abbrev(repo, from)}..${await abbrev(repo, to)}`;
  return { result, branch: current, commit: to, previous: from, files, range };
}
