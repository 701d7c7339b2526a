/** `git_stash_list` (its definition: ../../tools/gitStashList.ts). */

import { structuredResult } from '@mcpkit/protocol-core';
import { ANSWER_CAP, capText, fitItems } from '../../limits.js';
import type { GitContext } from '../context.js';
import { listStash } from '../refs/stash.js';
import { openRepo } from '../repo.js';

export interface StashListArgs {
  repo_path: string;
}

export async function stashList({ repo_path }: StashListArgs, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  const entries = (await listStash(repo)).map((e) => ({ name: `stash@{${e.index}}`, commit: e.oid, message: e.message }));
  const text = capText(entries.map((e) => `${e.name}: ${e.message}`).join('\n'), 'The oldest entries are left out; drop or pop some.');
  return structuredResult({ entries: fitItems(entries, ANSWER_CAP) }, text.text);
}
