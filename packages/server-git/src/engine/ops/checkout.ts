/** `git_checkout` (its definition: ../../tools/gitCheckout.ts). */

import git from 'isomorphic-git';
import type { GitContext } from '../context.js';
import { GitError } from '../errors.js';
import { type HeldIndex, withIndexLock } from '../git/indexLock.js';
import { identityFor } from '../refs/identity.js';
import { blockedPaths } from '../refs/inTheWay.js';
import { badName, guardDash } from '../refs/names.js';
import { appendReflog, updateRef } from '../refs/refLock.js';
import { readHead, resolveRevision } from '../refs/revision.js';
import { changedPaths, localChanges } from '../refs/worktree.js';
import type { Repo } from '../repo.js';

function gitFailure(cmdline: string, stderr: string): GitError {
  return new GitError('GIT_COMMAND_FAILED', `Cmd('git') failed due to: exit code(1)\n  cmdline: ${cmdline}\n  stderr: '${stderr}'`);
}

/** Where HEAD is now: the branch (null when detached), its commit, and the commit HEAD was at before. */
export interface CheckoutData {
  branch: string | null;
  commit: string;
  previous: string | null;
}

export async function checkout(repo: Repo, branch_name: string, ctx: GitContext): Promise<CheckoutData> {
  guardDash('branch name', branch_name);
  const target = await resolveRevision(repo, branch_name);
  if (!target) throw badName(branch_name);
  // git checkout prefers a local branch of that name; anything else detaches HEAD at the commit.
  let branch: string | null = null;
  try {
    await git.resolveRef({ ...repo.git, ref: `refs/heads/${branch_name}` });
    branch = branch_name;
  } catch {
    branch = null;
  }
  // Index and HEAD change together under index.lock (HEAD under its own lock too), as git checkout does.
  return withIndexLock(repo, (held) => switchTo(repo, { branch_name, branch, target: target.oid }, held, ctx));
}

async function switchTo(
  repo: Repo,
  { branch_name, branch, target }: { branch_name: string; branch: string | null; target: string },
  held: HeldIndex,
  ctx: GitContext,
): Promise<CheckoutData> {
  const head = await readHead(repo);
  const cmdline = `git checkout ${branch_name}`;
  // git's rule: local changes are carried over unless the switch changes those same files.
  const changes = await localChanges(held.repo);
  const touched = head.oid === null ? new Set<string>() : await changedPaths(repo, head.oid, target);
  const overwritten = [...new Set([...changes.staged, ...changes.unstaged])].filter((p) => touched.has(p)).sort();
  if (overwritten.length > 0) {
    throw gitFailure(
      cmdline,
      `error: Your local changes to the following files would be overwritten by checkout:\n\t${overwritten.join('\n\t')}\nPlease commit your changes or stash them before you switch branches.\nAborting`,
    );
  }
  const clobbered = changes.untracked.filter((p) => touched.has(p));
  if (clobbered.length > 0) {
    throw gitFailure(
      cmdline,
      `error: The following untracked working tree files would be overwritten by checkout:\n\t${clobbered.join('\n\t')}\nPlease move or remove them before you switch branches.\nAborting`,
    );
  }
  if (changes.staged.length > 0 && head.oid !== target) {
    // isomorphic-git does not carry staged changes across a switch the way git does; refuse rather than lose them.
    throw new GitError(
      'CONFLICT',
      `Staged changes in ${changes.staged.join(', ')}: commit them (git_commit), unstage them (git_reset) or stash them (git_stash) before switching; nothing was changed.`,
    );
  }
  const blocked = await blockedPaths(repo, touched);
  if (blocked.length > 0) {
    throw gitFailure(
      cmdline,
      `error: Updating these paths would lose untracked files or fail: ${blocked.join(', ')}\nPlease move or remove them before you switch branches.\nAborting`,
    );
  }
  try {
    // HEAD is moved below, under its lock; the index goes into index.lock (committed when this returns).
    await git.checkout({ ...held.git, ref: branch ?? target, force: false, track: false, noUpdateHead: true });
    await updateRef(repo, {
      ref: 'HEAD',
      value: branch ? `ref: refs/heads/${branch}` : target,
      expected: head.branch ? `ref: ${head.branch}` : head.oid,
      log: () => {
        try {
          appendReflog(
            repo,
            'HEAD',
            headReflogLine(repo, head, target, head.branch?.replace(/^refs\/heads\//, '') ?? head.oid ?? '', branch_name, ctx),
          );
        } catch {
          // The reflog is a convenience; the switch stands.
        }
      },
    });
  } catch (error) {
    // Put back the touched files (clean, see above); the index and HEAD were not changed.
    if (head.oid !== null && touched.size > 0) {
      await git.checkout({ ...held.git, ref: head.oid, filepaths: [...touched], force: true, noUpdateHead: true }).catch(() => undefined);
    }
    if ((error as { code?: string }).code === 'CheckoutConflictError') {
      const files = ((error as { data?: { filepaths?: string[] } }).data?.filepaths ?? []).join('\n\t');
      throw gitFailure(cmdline, `error: Your local changes to the following files would be overwritten by checkout:\n\t${files}\nAborting`);
    }
    throw error;
  }
  return { branch, commit: target, previous: head.oid };
}

/** git's HEAD reflog line for a checkout (what `git branch` reads to say "HEAD detached at <name>"). */
function headReflogLine(repo: Repo, head: { oid: string | null }, to: string, fromName: string, toName: string, ctx: GitContext): string {
  const who = identityFor(repo, ctx, 'committer');
  const offset = -who.timezoneOffset;
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const tz = `${sign}${String(Math.trunc(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return `${head.oid ?? '0'.repeat(40)} ${to} ${who.name} <${who.email}> ${who.timestamp} ${tz}\tcheckout: moving from ${fromName} to ${toName}\n`;
}
