/**
 * Opening a repository for one tool call: confinement first (roots, realpath, git dirs), then the
 * arguments every isomorphic-git call takes — a confined fs (whose object reads are served by the
 * repository's ObjectStore: objectFs.ts), the work tree, the git dir and a cache shared by the calls on
 * that repository — the call's budgeted view of the ObjectStore (pack indexes and windows stay loaded
 * between calls), and the call's WorkTree, through which the server's own readers see the work tree as git does.
 */

import { type RepoLocation, resolveRepository } from './confine.js';
import type { GitContext } from './context.js';
import { GitError } from './errors.js';
import { type ConfinedFs, createConfinedFs } from './git/confinedFs.js';
import { withObjectStore } from './git/objectFs.js';
import { createObjectStore, type ObjectStore } from './git/objectStore.js';
import type { RepoWrites } from './git/repoWrites.js';
import { createWorkTree, type WorkTree } from './git/workTree.js';
import type { RepoHeld } from './repoCache.js';
import type { RepoState } from './repoState.js';

export { createRepoCache } from './repoCache.js';

export interface Repo extends RepoLocation {
  /** The repo_path the caller gave, for messages. */
  given: string;
  /** Spread into every isomorphic-git call: `git.log({ ...repo.git, depth: 10 })`. */
  git: { fs: ConfinedFs; dir: string; gitdir: string; cache: object };
  /** What this server keeps per repository between calls (./repoState.ts). */
  state: RepoState;
  /** This repository's share of the memory budget, for derived data that grows with it (repoCache.ts). */
  held: RepoHeld;
  /** The repository's objects, read as git reads them (packs first, then loose), kept per repository; this call's budgeted view. */
  objects: ObjectStore;
  /** The work tree as git sees it (symlinks never followed), for this call: every work-tree read goes through it or `git.fs`. */
  work: WorkTree;
  /** This process's turn to change the repository, and how long its lock files are waited for (git/repoWrites.ts). */
  writes: RepoWrites;
}

/** Confines `repoPath` to the session's roots and returns what the tools need to work on it. */
export async function openRepo(ctx: GitContext, repoPath: string): Promise<Repo> {
  const roots = await ctx.roots.list();
  const location = await resolveRepository(repoPath, roots);
  if (location.commondir !== location.gitdir) {
    throw new GitError(
      'UNSUPPORTED',
      `'${repoPath}' is a linked worktree (git worktree add); isomorphic-git, which this server uses, cannot work on those. Use the main work tree '${location.commondir}' instead.`,
    );
  }
  const { cache, state, held } = ctx.repoCache.get(location.gitdir);
  let store = state.objectStore;
  if (store) store.refresh();
  else {
    store = createObjectStore(location.gitdir, held);
    state.objectStore = store;
  }
  const objects: ObjectStore = store.forCall(ctx.objectLimits);
  const work = createWorkTree(location.dir, ctx.repoCache.stats, ctx.workTreeHooks);
  // isomorphic-git reads objects through this server's reader too (limits and damage checks included).
  const fs = withObjectStore(
    createConfinedFs([location.dir, location.gitdir], { tree: work, gitdir: location.gitdir }),
    location.gitdir,
    objects,
  );
  return {
    ...location,
    given: repoPath,
    git: { fs, dir: location.dir, gitdir: location.gitdir, cache },
    state,
    held,
    objects,
    work,
    writes: ctx.repoCache.writes,
  };
}
