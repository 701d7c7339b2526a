/** The implementation of `gitStashList` (loaded on its first call; the definition is in ../tools). */

import { structuredResult } from '@mcpkit/protocol-core';
import type { GitContext } from '../context.js';
import { ANSWER_CAP, capText, fitItems } from '../limits.js';
import { listStash } from '../refs/stash.js';
import { openRepo } from '../repo.js';
import type { gitStashListInput } from '../tools/gitStashList.js';
import type { ToolArgs } from './types.js';

export async function run({ repo_path }: ToolArgs<typeof gitStashListInput>, ctx: GitContext) {
  const repo = await openRepo(ctx, repo_path);
  const entries = (await listStash(repo)).map((e) => ({ name: `stash@{${e.index}}`, commit: e.oid, message: e.message }));
  const text = capText(entries.map((e) => `${e.name}: ${e.message}`).join('\n'), 'The oldest entries are left out; drop or pop some.');
  return structuredResult({ entries: fitItems(entries, ANSWER_CAP) }, text.text);
}
