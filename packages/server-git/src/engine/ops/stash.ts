/** `git_stash` (its definition: ../../tools/gitStash.ts). */

import { structuredResult } from '@mcpkit/protocol-core';
import type { GitContext } from '../context.js';
import { withIndexLock } from '../git/indexLock.js';
import { identityFor } from '../refs/identity.js';
import { stashPop, stashPush } from '../refs/stash.js';
import { openRepo } from '../repo.js';

export interface StashArgs {
  repo_path: string;
  action: 'push' | 'pop';
  message?: string | undefined;
}

export async function stash({ repo_path, action, message }: StashArgs, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  if (action === 'push') {
    const identity = identityFor(repo, ctx, 'committer');
    const saved = await withIndexLock(repo, (held) => stashPush(repo, held, identity, message));
    return structuredResult(
      { action, stash: saved.oid, message: saved.message, files: saved.paths },
      `Saved working directory and index state ${saved.message}`,
    );
  }
  const popped = await withIndexLock(repo, (held) => stashPop(repo, held));
  return structuredResult(
    { action, stash: popped.oid, message: popped.message, files: popped.paths },
    `Restored ${popped.paths.join(', ')}\nDropped refs/stash@{0} (${popped.oid})`,
  );
}
