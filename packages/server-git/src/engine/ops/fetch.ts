/** `git_fetch` (its definition: ../../tools/gitFetch.ts). */

import { type RequestExtra, structuredResult } from '@mcpkit/protocol-core';
import git from 'isomorphic-git';
import type { GitContext } from '../context.js';
import { cancelledError, startRemoteCall } from '../remote/call.js';
import {
  authCallbacks,
  configuredRemote,
  describeUpdate,
  diffRefs,
  guardName,
  remoteError,
  requireRemote,
  saveFetchRefs,
  trackingRefs,
} from '../remote/ops.js';
import { openRepo } from '../repo.js';

/**
 * A cancelled fetch (the client sent `notifications/cancelled`) aborts the HTTP request in flight and
 * leaves every ref as it was (remote-tracking branches, tags, FETCH_HEAD, shallow): the ref files are
 * put back, also when the cancel arrives after the download, while the pack is indexed (which cannot
 * be interrupted). Objects already stored stay in .git/objects, unreferenced (git gc removes them).
 */
export interface FetchArgs {
  repo_path: string;
  remote: string;
  ref: string | null;
  prune: boolean;
  tags: boolean;
}

export async function fetch({ repo_path, remote: remoteName, ref, prune, tags }: FetchArgs, ctx: GitContext, extra?: RequestExtra) {
  const repo = await openRepo(ctx, repo_path);
  const access = requireRemote(ctx);
  if (ref !== null) guardName('ref', ref);
  const remote = await configuredRemote(repo, access, remoteName);
  const before = await trackingRefs(repo, remote.name, tags);
  const auth = authCallbacks(access, remote);
  const restoreRefs = await saveFetchRefs(repo, remote.name);
  const call = startRemoteCall(access.http, extra);
  try {
    await git.fetch({
      ...repo.git,
      http: call.http,
      onProgress: call.onProgress,
      url: remote.url,
      remote: remote.name,
      ...(ref !== null ? { ref, singleBranch: true } : {}),
      prune,
      tags,
      onAuth: auth.onAuth,
      onAuthFailure: auth.onAuthFailure,
    });
    if (call.cancelled) throw new Error('cancelled');
  } catch (error) {
    await restoreRefs().catch((e: unknown) => ctx.logger.warn('could not restore the refs after a failed fetch', e));
    if (call.cancelled) throw cancelledError(ctx.logger, 'Fetch from', remote, 'no ref was changed');
    throw remoteError(access, error, remote, 'Fetch from', auth, ref);
  } finally {
    call.end();
    // New packs (and possibly refs) on disk: cached pack indexes and derived data are stale.
    ctx.repoCache.drop(repo.gitdir);
  }
  const after = await trackingRefs(repo, remote.name, tags);
  const updated = diffRefs(before, after, remote.name);
  const text =
    updated.length === 0
      ? `Fetched ${remote.name}: already up to date`
      : updated.length === 1
        ? `Fetched ${remote.name}: ${describeUpdate(updated[0]!)}`
        : `Fetched ${remote.name}:\n${updated.map((u) => `  ${describeUpdate(u)}`).join('\n')}`;
  return structuredResult({ remote: remote.name, url: remote.display, updated }, text);
}
