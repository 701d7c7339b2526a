/** `git_fetch` (its definition: ../../tools/gitFetch.ts). */

import git from 'isomorphic-git';
import type { GitContext } from '../context.js';
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
import type { Repo } from '../repo.js';

/**
 * A cancelled fetch (the client sent `notifications/cancelled`) aborts the HTTP request in flight and
 * leaves every ref as it was (remote-tracking branches, tags, FETCH_HEAD, shallow): the ref files are
 * put back, also when the cancel arrives after the download, while the pack is indexed (which cannot
 * be interrupted). Objects already stored stay in .git/objects, unreferenced (git gc removes them).
 */
export interface FetchOptions {
  remote?: string | undefined;
  ref?: string | null | undefined;
  prune?: boolean | undefined;
  tags?: boolean | undefined;
}

/** The remote fetched from (its URL without credentials) and the remote-tracking refs (and tags) that changed. */
export interface FetchData {
  remote: string;
  url: string;
  updated: RefUpdate[];
}

export async function fetch(
  repo: Repo,
  { remote: remoteName = 'origin', ref = null, prune = false, tags = false }: FetchOptions,
  ctx: GitContext,
  options?: CallOptions,
): Promise<FetchData> {
  const access = requireRemote(ctx);
  if (ref !== null) guardName('ref', ref);
  const remote = await configuredRemote(repo, access, remoteName);
  const before = await trackingRefs(repo, remote.name, tags);
  const auth = authCallbacks(access, remote);
  const restoreRefs = await saveFetchRefs(repo, remote.name);
  const call = startRemoteCall(access.http, options);
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
  return { remote: remote.name, url: remote.display, updated: diffRefs(before, after, remote.name) };
}
