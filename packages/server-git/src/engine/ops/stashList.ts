/** `git_stash_list` (its answer: ../../tools/gitStashList.ts). */

import { listStash } from '../refs/stash.js';
import type { Repo } from '../repo.js';

export interface StashEntry {
  /** `stash@{<n>}`. */
  name: string;
  commit: string;
  message: string;
}

/** The stash entries, newest first (`git stash list`). */
export async function stashList(repo: Repo): Promise<StashEntry[]> {
  return (await listStash(repo)).map((e) => ({ name: `stash@{${e.index}}`, commit: e.oid, message: e.message }));
}
