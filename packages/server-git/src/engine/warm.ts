/**
 * Reading ahead for the background warm-up (../warmup.ts): for each allowed repository, what the first
 * call of a tool reads — HEAD, its branch and upstream, HEAD's tree (pack indexes and pack windows on the
 * way), the index, the work-tree listing for untracked files, the last commits, the branches, the patch of
 * the pending changes, the loose-object listings that abbreviate ids, and HEAD's own commit as git_show
 * prints it (only when it is small: see WARM_SHOW_*) — read by the very
 * operations the tools run (status, log, branch, diff_unstaged, show), so it stays in the
 * repository's caches and V8 has compiled those paths. Those operations only read: nothing is written.
 * Between operations it gives way to the event loop, and it stops as soon as `cancelled()` says so.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitContext } from './context.js';
import { listLooseFolders } from './diff/abbrev.js';
import { compareTrees } from './diff/changes.js';
import { readCommit } from './git/objectRead.js';
import { headCommit } from './git/objects.js';
import { openRepo } from './repo.js';
import { openRepository } from './repository.js';

/** A folder of repositories: at most this many of its sub-folders are read ahead. */
export const WARM_CHILDREN_MAX = 8;

/** What one repository's read-ahead answered: the engine's data, for the caller's schema warm-up. */
export interface WarmedRepository {
  path: string;
  results: Record<string, Record<string, unknown> | undefined>;
}

/**
 * The loose-object folders are listed ahead up to this many names (about 80 bytes each): git packs loose
 * objects once there are some 6,700 (gc.auto), so a repository in use rarely has more.
 */
export const WARM_LOOSE_NAMES_MAX = 50_000;

/** HEAD's commit is shown ahead only when it changes at most this many files… */
export const WARM_SHOW_FILES_MAX = 64;
/** …of at most this many bytes in all (both sides, sizes read from the objects' headers, nothing inflated). */
export const WARM_SHOW_BYTES_MAX = 1024 * 1024;

async function listLoose(ctx: GitContext, path: string): Promise<undefined> {
  listLooseFolders(await openRepo(ctx, path), WARM_LOOSE_NAMES_MAX);
  return undefined;
}

/** `git_show HEAD` when HEAD's commit is small (WARM_SHOW_*): the show path compiled, its patch read once. */
async function showHead(ctx: GitContext, path: string) {
  const repo = await openRepo(ctx, path);
  const head = await headCommit(repo);
  if (!head) return undefined;
  const { commit } = await readCommit(repo, head);
  const pairs = await compareTrees(repo, commit.parent[0] ?? null, head, { renames: false });
  if (pairs.length > WARM_SHOW_FILES_MAX) return undefined;
  let bytes = 0;
  for (const pair of pairs) {
    for (const e of [pair.old, pair.new]) {
      if (!e || (e.mode & 0o170000) === 0o160000) continue;
      const size = repo.objects.size(e.oid);
      if (size === null) return undefined;
      bytes += size;
    }
  }
  if (bytes > WARM_SHOW_BYTES_MAX) return undefined;
  return (await openRepository(ctx, path)).show({ revision: 'HEAD' });
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
      const open = () => openRepository(ctx, path);
      const steps: [string, () => Promise<object | null | undefined>][] = [
        ['git_status', async () => (await open()).status()],
        // The last 100 commits: a page clients often ask for, small to keep (parsed commits), slow to read cold.
        ['git_log', async () => (await open()).log({ max_count: 100 })],
        ['git_branch', async () => ({ branches: await (await open()).branches({ branch_type: 'local' }) })],
        // The patch code (line diff, hunks, blob reads), on the user's own pending changes: as large as they are.
        ['git_diff_unstaged', async () => (await open()).diffUnstaged({ context_lines: 3 })],
        ['loose objects', () => listLoose(ctx, path)],
        ['git_show', () => showHead(ctx, path)],
      ];
      const warmed: WarmedRepository = { path, results: {} };
      for (const [tool, run] of steps) {
        if (cancelled()) break;
        await yieldToRequests();
        try {
          const answer = await run();
          if (answer) warmed.results[tool] = answer as Record<string, unknown>;
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
