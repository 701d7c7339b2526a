/** `git_pull` (its definition: ../../tools/gitPull.ts). */

import git, { Errors } from 'isomorphic-git';
import type { GitContext } from '../context.js';
import { changedFiles } from '../diff/changes.js';
import { GitError } from '../errors.js';
import { allConfigs, configValue } from '../git/gitConfig.js';
import { withIndexLock } from '../git/indexLock.js';
import { identityFor } from '../refs/identity.js';
import { updateRef } from '../refs/refLock.js';
import { readHead } from '../refs/revision.js';
import { type CallOptions, cancelledError, startRemoteCall } from '../remote/call.js';
import {
  authCallbacks,
  configuredRemote,
  diffRefs,
  guardName,
  type RefUpdate,
  remoteError,
  requireRemote,
  saveFetchRefs,
  trackingRefs,
} from '../remote/ops.js';
import { openRepo, type Repo } from '../repo.js';

/** Paths whose content or mode differs between two commits (null: the empty tree of an unborn branch). */
async function changedPaths(repo: Repo, from: string | null, to: string): Promise<string[]> {
  return (await changedFiles(repo, from, to)).sort();
}

/**
 * Like git, refuses when a file the pull would change has local changes (staged or not), or when an
 * untracked file is in the way. Other local changes are kept.
 */
async function assertClean(repo: Repo, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const wanted = new Set(paths);
  const rows = await git.statusMatrix({ ...repo.git, filepaths: [...paths] });
  const modified: string[] = [];
  const untracked: string[] = [];
  for (const [file, head, workdir, stage] of rows) {
    if (!wanted.has(file)) continue;
    if (head === 1 && workdir === 1 && stage === 1) continue;
    if (head === 0 && stage === 0) untracked.push(file);
    else modified.push(file);
  }
  if (modified.length > 0) {
    throw new GitError(
      'CONFLICT',
      `Pull stopped, nothing was changed: your local changes to the following files would be overwritten by the merge:\n${modified.map((f) => `\t${f}`).join('\n')}\nCommit or stash them first.`,
    );
  }
  if (untracked.length > 0) {
    throw new GitError(
      'CONFLICT',
      `Pull stopped, nothing was changed: the following untracked files would be overwritten by the merge:\n${untracked.map((f) => `\t${f}`).join('\n')}\nMove or remove them first.`,
    );
  }
}

/**
 * A cancelled pull (the client sent `notifications/cancelled`) changes nothing, as long as the cancel
 * arrives before the work tree update begins: the HTTP request in flight is aborted, the
 * remote-tracking refs are put back (also when the fetch had finished), the branch, index and work
 * tree are untouched (a merge commit already made is an unreferenced object, git gc removes it). Once
 * the work tree update has begun (local and short, after every check passed), the pull completes:
 * stopping between the files and the branch would leave a half-updated work tree.
 */
export interface PullOptions {
  remote?: string | undefined;
  branch?: string | null | undefined;
}

/** What the pull fetched and did to the current branch (old → new), and the files it changed. */
export interface PullData {
  remote: string;
  url: string;
  branch: string;
  remote_branch: string;
  fetched: RefUpdate[];
  result: 'up-to-date' | 'fast-forward' | 'merge';
  old: string | null;
  new: string | null;
  files: string[];
  /** The fetched commit merged (FETCH_HEAD). */
  theirs: string;
}

export async function pull(
  opened: Repo,
  { remote: remoteName = 'origin', branch = null }: PullOptions,
  ctx: GitContext,
  options?: CallOptions,
): Promise<PullData> {
  let repo = opened;
  const access = requireRemote(ctx);
  if (branch !== null) guardName('branch', branch);
  const head = await readHead(repo);
  if (head.branch === null || !head.branch.startsWith('refs/heads/')) {
    throw new GitError('CONFLICT', 'You are not currently on a branch (HEAD is detached); check out the branch to pull into first.');
  }
  const local = head.branch.slice('refs/heads/'.length);
  const remote = await configuredRemote(repo, access, remoteName);
  let remoteBranch = branch;
  if (remoteBranch === null) {
    const configs = allConfigs(repo, { env: ctx.env, home: ctx.home });
    const upstreamRemote = configValue(configs, `branch.${local}.remote`);
    const merge = configValue(configs, `branch.${local}.merge`);
    remoteBranch = upstreamRemote === remote.name && merge?.startsWith('refs/heads/') ? merge.slice('refs/heads/'.length) : local;
  }
  const before = await trackingRefs(repo, remote.name, false);
  const auth = authCallbacks(access, remote);
  const restoreRefs = await saveFetchRefs(repo, remote.name);
  const call = startRemoteCall(access.http, options);
  const restore = () => restoreRefs().catch((e: unknown) => ctx.logger.warn('could not restore the refs after a failed fetch', e));
  /** Before each step that changes something: a cancelled call puts the refs back and stops. */
  const stopIfCancelled = async () => {
    if (!call.cancelled) return;
    await restore();
    throw cancelledError(ctx.logger, 'Pull from', remote, 'nothing was changed');
  };
  let theirs: string | null;
  try {
    const result = await git.fetch({
      ...repo.git,
      http: call.http,
      onProgress: call.onProgress,
      url: remote.url,
      remote: remote.name,
      ref: remoteBranch,
      singleBranch: true,
      onAuth: auth.onAuth,
      onAuthFailure: auth.onAuthFailure,
    });
    theirs = result.fetchHead;
  } catch (error) {
    await restore();
    if (call.cancelled) throw cancelledError(ctx.logger, 'Pull from', remote, 'nothing was changed');
    throw remoteError(access, error, remote, 'Pull from', auth, remoteBranch);
  } finally {
    call.end();
    ctx.repoCache.drop(repo.gitdir);
  }
  await stopIfCancelled();
  // Fresh isomorphic-git caches: the fetch wrote a new pack.
  repo = await openRepo(ctx, repo.given);
  const fetched = diffRefs(before, await trackingRefs(repo, remote.name, false), remote.name);
  if (!theirs) throw new GitError('NOT_FOUND', `Pull from '${remote.name}' failed: the remote has no branch '${remoteBranch}'`);
  const ours = head.oid;
  const base = { remote: remote.name, url: remote.display, branch: local, remote_branch: remoteBranch, fetched };
  const from = `${remote.name}/${remoteBranch}`;
  const fetchedHead = theirs;

  const upToDate = ours !== null && (ours === theirs || (await git.isDescendent({ ...repo.git, oid: ours, ancestor: theirs, depth: -1 })));
  if (upToDate) {
    return { ...base, result: 'up-to-date', old: ours, new: ours, files: [], theirs };
  }
  const branchRef = head.branch;
  // From here to the move of the branch under index.lock, as git merge: the index and the work tree
  // are checked and changed by this call only.
  const { fastForward, target, files } = await withIndexLock(repo, async (held) => {
    const fastForward = ours === null || (await git.isDescendent({ ...repo.git, oid: theirs, ancestor: ours, depth: -1 }));
    let target = theirs;
    if (!fastForward) {
      // Who makes the merge commit: env, then config, like git; a ToolError saying how to set one when unknown.
      const author = identityFor(repo, ctx, 'author');
      const committer = identityFor(repo, ctx, 'committer');
      try {
        const merged = await git.merge({
          ...held.git,
          ours: branchRef,
          theirs,
          fastForward: false,
          noUpdateBranch: true,
          abortOnConflict: true,
          message: `Merge branch '${remoteBranch}' of ${remote.display}`,
          author,
          committer,
        });
        if (!merged.oid) throw new GitError('FAILED', `Pull from '${remote.name}' failed: the merge produced no commit`);
        target = merged.oid;
      } catch (error) {
        if (error instanceof Errors.MergeConflictError || error instanceof Errors.MergeNotSupportedError) {
          const files = ((error as { data?: { filepaths?: string[] } }).data?.filepaths ?? []).join(', ');
          throw new GitError(
            'CONFLICT',
            `Pull stopped, nothing was changed: merging ${from} into ${local} conflicts${files ? ` in ${files}` : ''}. The fetched commits are in ${from}; merge or rebase by hand.`,
          );
        }
        if (error instanceof GitError) throw error;
        throw new GitError(
          'FAILED',
          access.redact(`Pull from '${remote.name}' failed while merging: ${error instanceof Error ? error.message : String(error)}`),
        );
      }
    }
    const files = await changedPaths(repo, ours, target);
    await assertClean(held.repo, files);
    // The last point a cancel is honoured: from here on the work tree and the branch are updated together.
    await stopIfCancelled();
    if (files.length > 0) {
      // Only the files that change are touched; other local changes stay. Conflicts are found before any write.
      await git.checkout({ ...held.git, ref: target, filepaths: files, noUpdateHead: true });
    }
    try {
      // The branch moves only from the commit the pull started from (compare-and-swap under its lock).
      await updateRef(repo, { ref: branchRef, value: target, expected: ours });
    } catch (error) {
      if (files.length > 0 && ours !== null) {
        await git.checkout({ ...held.git, ref: ours, filepaths: files, force: true, noUpdateHead: true }).catch(() => undefined);
      }
      throw error;
    }
    return { fastForward, target, files };
  });
  ctx.repoCache.drop(repo.gitdir);
  return { ...base, result: fastForward ? 'fast-forward' : 'merge', old: ours, new: target, files, theirs: fetchedHead };
}
