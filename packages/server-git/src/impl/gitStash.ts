/** The implementation of `gitStash` (loaded on its first call; the definition is in ../tools). */

import { structuredResult } from '@mcpkit/protocol-core';
import type { GitContext } from '../context.js';
import { identityFor } from '../refs/identity.js';
import { stashPop, stashPush } from '../refs/stash.js';
import { openRepo } from '../repo.js';
import type { gitStashInput } from '../tools/gitStash.js';
import type { ToolArgs } from './types.js';

export async function run({ repo_path, action, message }: ToolArgs<typeof gitStashInput>, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  if (action === 'push') {
    const identity = identityFor(repo, ctx, 'committer');
    const saved = await stashPush(repo, identity, message);
    return structuredResult(
      { action, stash: saved.oid, message: saved.message, files: saved.paths },
      `Saved working directory and index state ${saved.message}`,
    );
  }
  const popped = await stashPop(repo);
  return structuredResult(
    { action, stash: popped.oid, message: popped.message, files: popped.paths },
    `Restored ${popped.paths.join(', ')}\nDropped refs/stash@{0} (${popped.oid})`,
  );
}
