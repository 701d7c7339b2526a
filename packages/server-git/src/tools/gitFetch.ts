import { defineTool, structuredResult } from '@mcpkit/protocol-core';
import git from 'isomorphic-git';
import { z } from 'zod';
import type { GitContext } from '../context.js';
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
import { repoPath } from './common.js';

export const refUpdateSchema = z.object({
  ref: z.string().describe('Full ref name, e.g. refs/remotes/origin/main'),
  name: z.string().describe('Short name: the branch on the remote, or the tag'),
  old: z.string().nullable().describe('Commit before; null for a new ref'),
  new: z.string().nullable().describe('Commit after; null for a deleted (pruned) ref'),
});

export const gitFetch = defineTool({
  name: 'git_fetch',
  title: 'Fetch from a remote',
  description:
    "Download commits and branches from a remote configured in the repository (https only) into its remote-tracking branches (origin/main, …). The work tree, the index and local branches are not changed. Credentials come from the server's environment.",
  input: {
    repo_path: repoPath,
    remote: z
      .string()
      .default('origin')
      .meta({ title: 'Remote' })
      .describe('Name of a remote configured in the repository (default origin)'),
    ref: z
      .string()
      .nullable()
      .default(null)
      .meta({ title: 'Ref' })
      .describe('Fetch only this branch of the remote; all its branches when absent'),
    prune: z
      .boolean()
      .default(false)
      .meta({ title: 'Prune' })
      .describe('Delete remote-tracking branches that no longer exist on the remote'),
    tags: z.boolean().default(false).meta({ title: 'Tags' }).describe('Fetch all tags too'),
  },
  output: {
    remote: z.string(),
    url: z.string().describe('The remote URL (without any credentials)'),
    updated: z.array(refUpdateSchema).describe('Refs that changed, in name order'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ repo_path, remote: remoteName, ref, prune, tags }, ctx: GitContext) => {
    const repo = await openRepo(ctx, repo_path);
    const access = requireRemote(ctx);
    if (ref !== null) guardName('ref', ref);
    const remote = await configuredRemote(repo, access, remoteName);
    const before = await trackingRefs(repo, remote.name, tags);
    const auth = authCallbacks(access, remote);
    const restoreRefs = await saveFetchRefs(repo, remote.name);
    try {
      await git.fetch({
        ...repo.git,
        http: access.http,
        url: remote.url,
        remote: remote.name,
        ...(ref !== null ? { ref, singleBranch: true } : {}),
        prune,
        tags,
        onAuth: auth.onAuth,
        onAuthFailure: auth.onAuthFailure,
      });
    } catch (error) {
      await restoreRefs().catch((e: unknown) => ctx.logger.warn('could not restore the refs after a failed fetch', e));
      throw remoteError(access, error, remote, 'Fetch from', auth, ref);
    } finally {
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
  },
});
