/** `git_push` (its definition: ../../tools/gitPush.ts). */

import git, { Errors } from 'isomorphic-git';
import type { GitContext } from '../context.js';
import { GitError } from '../errors.js';
import { readHead } from '../refs/revision.js';
import { type CallOptions, cancelledError, startRemoteCall } from '../remote/call.js';
import { authCallbacks, configuredRemote, guardName, remoteError, requireRemote } from '../remote/ops.js';
import type { Repo } from '../repo.js';

const ZERO = '0000000000000000000000000000000000000000';

/**
 * A cancelled push (the client sent `notifications/cancelled`) aborts the HTTP request in flight.
 * Whether the remote branch moved is the remote's decision, as when git's own push is interrupted: a
 * pack that did not arrive whole changes nothing there, one that did may already be applied. Locally
 * nothing changes, unless the remote's answer had already arrived: then the push completed and the
 * remote-tracking branch records it, as after any push (the result is dropped).
 */
export interface PushOptions {
  remote?: string | undefined;
  branch?: string | null | undefined;
  force?: boolean | undefined;
}

/** The branch pushed (`refs/heads/<branch>`), where the remote's branch was (null: new) and is now. */
export interface PushData {
  remote: string;
  url: string;
  ref: string;
  old: string | null;
  new: string;
  result: 'up-to-date' | 'new-branch' | 'fast-forward' | 'forced';
  /** The local branch's short name. */
  branch: string;
}

export async function push(
  repo: Repo,
  { remote: remoteName = 'origin', branch = null, force = false }: PushOptions,
  ctx: GitContext,
  options?: CallOptions,
): Promise<PushData> {
  const access = requireRemote(ctx);
  let local = branch;
  if (local === null) {
    const head = await readHead(repo);
    if (head.branch === null || !head.branch.startsWith('refs/heads/')) {
      throw new GitError('CONFLICT', 'You are not currently on a branch (HEAD is detached); give the branch to push.');
    }
    local = head.branch.slice('refs/heads/'.length);
  } else {
    guardName('branch', local);
    local = local.replace(/^refs\/heads\//, '');
  }
  const fullRef = `refs/heads/${local}`;
  let oid: string;
  try {
    oid = await git.resolveRef({ ...repo.git, ref: fullRef });
  } catch {
    throw new GitError('NOT_FOUND', `src refspec ${local} does not match any: there is no local branch '${local}' (or it has no commits)`);
  }
  const remote = await configuredRemote(repo, access, remoteName, true);
  const auth = authCallbacks(access, remote);
  let old: string | null = null;
  const call = startRemoteCall(access.http, options);
  try {
    await git.push({
      ...repo.git,
      http: call.http,
      onProgress: call.onProgress,
      url: remote.url,
      remote: remote.name,
      ref: fullRef,
      remoteRef: fullRef,
      force,
      onAuth: auth.onAuth,
      onAuthFailure: auth.onAuthFailure,
      onPrePush: ({ remoteRef }) => {
        old = remoteRef.oid === ZERO ? null : remoteRef.oid;
        return true;
      },
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    // The remote's answer had arrived when the cancel came: the push is done (the result goes nowhere).
    if (call.cancelled) ctx.logger.info(`Push to '${remote.name}' (${remote.display}) completed before the client's cancel took effect`);
  } catch (error) {
    if (call.cancelled) throw cancelledError(ctx.logger, 'Push to', remote, 'the remote may or may not have applied it');
    if (error instanceof Errors.PushRejectedError) {
      throw new GitError(
        'REMOTE',
        `Push to '${remote.name}' rejected: ${remote.name}/${local} has commits that ${local} does not (non-fast-forward). Pull first (git_pull), or push with force: true to overwrite them.`,
      );
    }
    if (error instanceof Errors.GitPushError) {
      const details = (error as { data?: { prettyDetails?: string } }).data?.prettyDetails ?? ` ${error.message}`;
      throw new GitError('REMOTE', access.redact(`Push to '${remote.name}' (${remote.display}) was refused by the remote:${details}`));
    }
    throw remoteError(access, error, remote, 'Push to', auth);
  } finally {
    call.end();
    ctx.repoCache.drop(repo.gitdir);
  }
  const before = old as string | null;
  let result: 'up-to-date' | 'new-branch' | 'fast-forward' | 'forced';
  if (before === oid) result = 'up-to-date';
  else if (before === null) result = 'new-branch';
  else if (await git.isDescendent({ ...repo.git, oid, ancestor: before, depth: -1 }).catch(() => false)) result = 'fast-forward';
  else result = 'forced';
  return { remote: remote.name, url: remote.display, ref: fullRef, old: before, new: oid, result, branch: local };
}
