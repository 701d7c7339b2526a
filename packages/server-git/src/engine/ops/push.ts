/** `git_push` (its definition: ../../tools/gitPush.ts). */

import type { RequestExtra } from '@mcpkit/protocol-core';
import { structuredResult, ToolError } from '@mcpkit/protocol-core';
import git, { Errors } from 'isomorphic-git';
import type { GitContext } from '../context.js';
import { readHead } from '../refs/revision.js';
import { cancelledError, startRemoteCall } from '../remote/call.js';
import { authCallbacks, configuredRemote, guardName, remoteError, requireRemote, short } from '../remote/ops.js';
import { openRepo } from '../repo.js';

const ZERO = '0000000000000000000000000000000000000000';

/**
 * A cancelled push (the client sent `notifications/cancelled`) aborts the HTTP request in flight.
 * Whether the remote branch moved is the remote's decision, as when git's own push is interrupted: a
 * pack that did not arrive whole changes nothing there, one that did may already be applied. Locally
 * nothing changes, unless the remote's answer had already arrived: then the push completed and the
 * remote-tracking branch records it, as after any push (the result is dropped).
 */
export interface PushArgs {
  repo_path: string;
  remote: string;
  branch: string | null;
  force: boolean;
}

export async function push({ repo_path, remote: remoteName, branch, force }: PushArgs, ctx: GitContext, extra: RequestExtra) {
  const repo = await openRepo(ctx, repo_path);
  const access = requireRemote(ctx);
  let local = branch;
  if (local === null) {
    const head = await readHead(repo);
    if (head.branch === null || !head.branch.startsWith('refs/heads/')) {
      throw new ToolError('You are not currently on a branch (HEAD is detached); give the branch to push.');
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
    throw new ToolError(`src refspec ${local} does not match any: there is no local branch '${local}' (or it has no commits)`);
  }
  const remote = await configuredRemote(repo, access, remoteName, true);
  const auth = authCallbacks(access, remote);
  let old: string | null = null;
  const call = startRemoteCall(access.http, extra);
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
      signal: extra.signal,
    });
    // The remote's answer had arrived when the cancel came: the push is done (the result goes nowhere).
    if (call.cancelled) ctx.logger.info(`Push to '${remote.name}' (${remote.display}) completed before the client's cancel took effect`);
  } catch (error) {
    if (call.cancelled) throw cancelledError(ctx.logger, 'Push to', remote, 'the remote may or may not have applied it');
    if (error instanceof Errors.PushRejectedError) {
      throw new ToolError(
        `Push to '${remote.name}' rejected: ${remote.name}/${local} has commits that ${local} does not (non-fast-forward). Pull first (git_pull), or push with force: true to overwrite them.`,
      );
    }
    if (error instanceof Errors.GitPushError) {
      const details = (error as { data?: { prettyDetails?: string } }).data?.prettyDetails ?? ` ${error.message}`;
      throw new ToolError(access.redact(`Push to '${remote.name}' (${remote.display}) was refused by the remote:${details}`));
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
  const text =
    result === 'up-to-date'
      ? `Everything up-to-date: ${remote.name}/${local} is already at ${short(oid)}`
      : result === 'new-branch'
        ? `Pushed ${local} to ${remote.name}: new branch ${short(oid)}`
        : result === 'forced'
          ? `Pushed ${local} to ${remote.name}: forced update ${short(before ?? '')}...${short(oid)}`
          : `Pushed ${local} to ${remote.name}: ${short(before ?? '')}..${short(oid)}`;
  return structuredResult({ remote: remote.name, url: remote.display, ref: fullRef, old: before, new: oid, result }, text);
}
