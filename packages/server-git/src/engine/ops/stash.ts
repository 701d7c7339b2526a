/** `git_stash` (its answer: ../../tools/gitStash.ts). */

import type { GitContext } from '../context.js';
import { withIndexLock } from '../git/indexLock.js';
import { identityFor } from '../refs/identity.js';
import { stashPop, stashPush } from '../refs/stash.js';
import type { Repo } from '../repo.js';

export interface StashOptions {
  action: 'push' | 'pop';
  message?: string | undefined;
}

/** The stash entry saved (push) or applied and dropped (pop), and the files it holds. */
export interface StashData {
  action: 'push' | 'pop';
  stash: string;
  message: string;
  files: string[];
}

export async function stash(repo: Repo, { action, message }: StashOptions, ctx: GitContext): Promise<StashData> {
  if (action === 'push') {
    const identity = identityFor(repo, ctx, 'committer');
    const saved = await withIndexLock(repo, (held) => stashPush(repo, held, identity, message));
    return { action, stash: saved.oid, message: saved.message, files: saved.paths };
  }
  const popped = await withIndexLock(repo, (held) => stashPop(repo, held));
  return { action, stash: popped.oid, message: popped.message, files: popped.paths };
}
