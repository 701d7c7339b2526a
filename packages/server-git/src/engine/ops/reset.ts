/** `git_reset` (its definition: ../../tools/gitReset.ts). */

import type { IndexEntry } from '../git/indexFile.js';
import { withIndexLock } from '../git/indexLock.js';
import { headCommit, treeFiles } from '../git/objects.js';
import { comparePaths } from '../git/paths.js';
import { entryFromTree } from '../git/stage.js';
import type { Repo } from '../repo.js';

/**
 * `repo.index.reset()` of the reference: the index becomes HEAD's tree (new files are unstaged, staged
 * changes dropped, conflicts cleared); the work tree is not touched. On an unborn branch the index is emptied.
 */
export interface ResetData {
  /** The paths whose index entry changed. */
  unstaged: string[];
}

export async function reset(repo: Repo): Promise<ResetData> {
  return withIndexLock(repo, async (held) => {
    const head = await headCommit(repo);
    const files = head ? await treeFiles(repo, head) : new Map();
    const index = held.index;
    const current = new Map(index.parsed.entries.filter((e) => e.stage === 0).map((e) => [e.path, e]));
    const entries: IndexEntry[] = [];
    for (const file of files.values()) entries.push(entryFromTree(file, current.get(file.path)));
    const unstaged = new Set<string>();
    for (const e of index.parsed.entries) {
      const h = files.get(e.path);
      if (!h || e.stage !== 0 || h.oid !== e.oid || h.mode !== e.mode || e.intentToAdd) unstaged.add(e.path);
    }
    for (const path of files.keys()) if (!current.has(path)) unstaged.add(path);
    if (unstaged.size > 0) held.write(entries);
    return { unstaged: [...unstaged].sort(comparePaths) };
  });
}
