/**
 * Reading ahead for the background warm-up (../warmup.ts): for each allowed repository, what the first
 * call of a tool reads — HEAD, its branch and upstream, HEAD's tree (pack indexes and pack windows on the
 * way), the index, the work-tree listing for untracked files, the last commits, the branches, the patch of
 * the pending changes, and isomorphic-git's pack index map for abbreviated ids (within a bound) — read by
 * the very operations the tools run (status, log, branch, diff_unstaged, the revision lookup), so it stays
 * in the repository's caches and V8 has compiled those paths. Those operations only read: nothing is
 * written. Between operations it gives way to the event loop, and it stops as soon as `cancelled()` says so.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitContext } from './context.js';
import { resolveObject } from './diff/rev.js';
import { headCommit } from './git/objects.js';
import { branches } from './ops/branches.js';
import { diffUnstaged } from './ops/diff.js';
import { log } from './ops/log.js';
import { status } from './ops/status.js';
import { openRepo } from './repo.js';

/** A folder of repositories: at most this many of its sub-folders are read ahead. */
export const WARM_CHILDREN_MAX = 8;

/** What one repository's read-ahead answered: the structured results, for the caller's schema warm-up. */
export interface WarmedRepository {
  path: string;
  results: Record<string, Record<string, unknown> | undefined>;
}

/**
 * Abbreviated object ids (`git_show 28a9c12`, `git_diff 28a9c12`) are expanded by isomorphic-git, which loads
 * every pack index into a map of its own (about 150 bytes an object) on first use: primed only up to this much
 * pack index (about 300,000 objects, some 45 MB of map), past which the first such call pays for it itself.
 */
export const WARM_ABBREV_IDX_MAX = 8 * 1024 * 1024;

/** Expands HEAD's abbreviated id once, when the pack indexes are small enough (see WARM_ABBREV_IDX_MAX). */
async function primeAbbreviations(ctx: GitContext, path: string): Promise<undefined> {
  const repo = await openRepo(ctx, path);
  const head = await headCommit(repo);
  if (!head) return undefined;
  const dir = join(repo.gitdir, 'objects', 'pack');
  let bytes = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (name.endsWith('.idx')) bytes += (await stat(join(dir, name))).size;
  }
  if (bytes <= WARM_ABBREV_IDX_MAX) await resolveObject(repo, head.slice(0, 12), { kind: 'commit' });
  return undefined;
}

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A root itself when it is a work tree, else its first sub-folders (by name) that are. */
async function candidates(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  if (entries.some((e) => e.name === '.git')) return [root];
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort()
    .slice(0, WARM_CHILDREN_MAX)
    .map((name) => join(root, name));
}

/**
 * Reads each repository under `ctx.roots` ahead (see above). Operations that fail (a sub-folder that is
 * not a repository, a repository without commits) are skipped and reported through `onSkip`.
 */
export async function warmRepositories(
  ctx: GitContext,
  cancelled: () => boolean,
  onSkip: (path: string, error: unknown) => void,
): Promise<WarmedRepository[]> {
  const out: WarmedRepository[] = [];
  for (const root of await ctx.roots.list()) {
    for (const path of await candidates(root)) {
      if (cancelled()) return out;
      const steps: [string, () => Promise<{ structuredContent?: Record<string, unknown> } | undefined>][] = [
        ['git_status', () => status({ repo_path: path }, ctx)],
        ['git_log', () => log({ repo_path: path, max_count: 10, start_timestamp: null, end_timestamp: null }, ctx)],
        ['git_branch', () => branches({ repo_path: path, branch_type: 'local', contains: null, not_contains: null }, ctx)],
        // The patch code (line diff, hunks, blob reads), on the user's own pending changes: as large as they are.
        ['git_diff_unstaged', () => diffUnstaged({ repo_path: path, context_lines: 3 }, ctx)],
        ['abbreviated ids', () => primeAbbreviations(ctx, path)],
      ];
      const warmed: WarmedRepository = { path, results: {} };
      for (const [tool, run] of steps) {
        if (cancelled()) break;
        await yieldToRequests();
        try {
          const answer = await run();
          if (answer) warmed.results[tool] = answer.structuredContent;
        } catch (error) {
          onSkip(path, error);
          break;
        }
      }
      if (Object.keys(warmed.results).length > 0) out.push(warmed);
    }
  }
  return out;
}
