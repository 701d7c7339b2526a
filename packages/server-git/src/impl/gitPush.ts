/** The implementation of `gitPush` (loaded on its first call; the definition is in ../tools). */

import type { RequestExtra } from '@mcpkit/protocol-core';
import { structuredResult, ToolError } from '@mcpkit/protocol-core';
import git, { Errors } from 'isomorphic-git';
import type { GitContext } from '../context.js';
import { readHead } from '../refs/revision.js';
import { authCallbacks, configuredRemote, guardName, remoteError, requireRemote, short } from '../remote/ops.js';
import { openRepo } from '../repo.js';
import type { gitPushInput } from '../tools/gitPush.js';
import type { ToolArgs } from './types.js';

const ZERO = '0000000000000000000000000000000000000000';

export async function run(
  { repo_path, remote: remoteName, branch, force }: ToolArgs<typeof gitPushInput>,
  ctx: GitContext,
  extra: RequestExtra,
) {
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
  try {
    await git.push({
      ...repo.git,
      http: access.http,
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
  } catch (error) {
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
